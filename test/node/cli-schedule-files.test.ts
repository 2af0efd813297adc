// The CLI's half of schedules as code: reading the file with its line numbers, cutting a big file
// into pages the API takes (and back), and the exit codes of mistakes no server sees.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filePath, mergePlans, pagesOf, planPagesOf } from "../../src/cli/schedule-file-pages";
import { formatProblem, parseScheduleFile } from "../../src/cli/schedule-file-parse";
import { cli } from "./cli-harness";

describe("parseScheduleFile", () => {
  it("names the line and column of a YAML mistake and of a repeated key", () => {
    const parsed = parseScheduleFile("jobs:\n  - name: a\n    name: b\n");
    expect("problems" in parsed && parsed.problems[0]?.at).toEqual({ line: 3, column: 5 });
    const broken = parseScheduleFile("jobs:\n  - name: a\n    schedule: {type: cron\n");
    expect("problems" in broken && broken.problems[0]?.at?.line).toBeGreaterThanOrEqual(3);
  });

  it("refuses a top-level field the format lacks, at its place, and locates a nested path", () => {
    const unknown = parseScheduleFile("managed_by: s.yaml\njob:\n  - name: a\n");
    expect(
      "problems" in unknown && unknown.problems.map((problem) => formatProblem("s.yaml", problem)),
    ).toEqual(["s.yaml:2:1: job: is not a known field"]);
    const parsed = parseScheduleFile('{"jobs": [{"name": "a"},\n {"name": "b", "target": {"url": 3}}]}');
    if ("problems" in parsed) throw new Error("expected a file");
    expect(parsed.locate("jobs.1.target.url")).toEqual({ line: 2, column: 27 });
    // A path the file does not have (a missing field) points at what holds it.
    expect(parsed.locate("jobs.1.schedule")).toEqual({ line: 2, column: 2 });
    expect(parsed.file.jobs).toHaveLength(2);
  });

  it("keeps YAML 1.1 look-alikes as the strings JSON would have", () => {
    const parsed = parseScheduleFile("jobs:\n  - name: on\n    start_at: 2026-01-01T00:00:00Z\n");
    if ("problems" in parsed) throw new Error("expected a file");
    expect(parsed.file.jobs?.[0]).toEqual({ name: "on", start_at: "2026-01-01T00:00:00Z" });
  });
});

describe("pagesOf", () => {
  const job = (name: string) => ({
    name,
    schedule: { type: "interval", every: "1h" },
    target: { url: "https://example.com/h" },
  });
  const parts = (jobs: unknown[], prune = false) => ({
    managedBy: "s.yaml",
    calendars: [],
    jobs,
    prune,
    adopt: false,
  });

  it("sends a file that fits as one request of the whole file", () => {
    const pages = pagesOf(parts([job("b"), job("a")], true));
    expect(pages).toHaveLength(1);
    expect(pages[0]?.request).toMatchObject({ prune: true, jobs: [{ name: "b" }, { name: "a" }] });
    expect(pages[0]?.request.scope).toBeUndefined();
  });

  it("cuts a big file into name ranges that cover every name once, calendars first and pruned last", () => {
    const names = Array.from({ length: 2500 }, (_unused, index) => `job-${String(index).padStart(5, "0")}`);
    names.push("job-01000");
    const pages = pagesOf(parts(names.reverse().map(job), true));
    expect(pages.map((page) => page.kind)).toEqual([
      "calendars-first",
      "jobs",
      "jobs",
      "jobs",
      "calendars-last",
    ]);
    const jobPages = pages.filter((page) => page.kind === "jobs");
    expect(jobPages.map((page) => page.request.scope?.names)).toEqual([
      { from: null, to: "job-01000" },
      { from: "job-01000", to: "job-01999" },
      { from: "job-01999", to: null },
    ]);
    // The two jobs of one name go in one page, where the API names both.
    const second = jobPages[1];
    expect(second?.request.jobs?.slice(0, 2).map((item) => item.name)).toEqual(["job-01000", "job-01000"]);
    expect(jobPages.reduce((sum, page) => sum + page.fileIndexes.length, 0)).toBe(2501);
    expect(second && filePath(second, "jobs.1.schedule.every")).toBe(
      `jobs.${second?.fileIndexes[1]}.schedule.every`,
    );
    expect(planPagesOf(pages).map((page) => page.kind)).toEqual(["jobs", "jobs", "jobs", "calendars-last"]);
  });

  it("puts the pages' answers back together with the file's indexes", () => {
    const pages = pagesOf(parts([job("a")]));
    const counts = { create: 1, update: 0, adopt: 0, delete: 0, unchanged: 0 };
    const page = { ...pages[0]!, fileIndexes: [7] };
    const plan = {
      managed_by: "s.yaml",
      prune: false,
      summary: { jobs: counts, calendars: { ...counts, create: 0 } },
      jobs: [{ action: "create" as const, index: 0, name: "a", paused: false }],
      calendars: [],
      notes: [],
    };
    expect(
      mergePlans(
        [
          { page, plan },
          { page, plan },
        ],
        "s.yaml",
        false,
      ),
    ).toMatchObject({
      summary: { jobs: { create: 2 } },
      jobs: [{ index: 7 }, { index: 7 }],
    });
  });
});

describe("edgecron plan and apply, before any request", () => {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-sac-"));

  it("names a YAML mistake's line and column and exits 1; a missing file or flag is 1 too (2 means changes)", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "jobs:\n  - name: a\n    name: b\n");
    const env = { EDGECRON_TOKEN: "t", EDGECRON_URL: "http://127.0.0.1:9" };
    const result = await cli(["plan", "-f", bad], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${bad}:3:5: Map keys must be unique`);
    expect((await cli(["apply", "-f", join(dir, "missing.yaml"), "--yes"], env)).code).toBe(1);
    expect((await cli(["plan"], env)).code).toBe(1);
    expect((await cli(["plan", "-f", bad, "--nope"], env)).code).toBe(1);
  });

  it("prints the JSON Schema editors validate a file with", async () => {
    const result = await cli(["schema"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).properties.jobs.items.properties).toHaveProperty("paused");
  });
});
