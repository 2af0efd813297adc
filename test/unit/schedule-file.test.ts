// The pure half of schedules as code (src/core/schedule-file/): reading a file with its line
// numbers, the file's own rules on its entries, which stored job an entry is, and the field diff.
import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import { comparableSpec } from "../../src/core/schedule-file/comparable";
import { diffJson, hideSecrets } from "../../src/core/schedule-file/diff";
import { checkFileJobs } from "../../src/core/schedule-file/items";
import { scheduleFileJsonSchema } from "../../src/core/schedule-file/json-schema";
import { compareNames, nameInRange } from "../../src/core/schedule-file/names";
import { type ExistingJob, matchJob } from "../../src/core/schedule-file/plan";
import { fileRequestSchema } from "../../src/core/schedule-file/request";

const job = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  schedule: { type: "cron", expr: "0 3 * * *" },
  target: { url: "https://example.com/hook" },
  ...extra,
});

describe("checkFileJobs", () => {
  it("names both places of a repeated name, a one-shot delay, and fields only the file decides", () => {
    const request = fileRequestSchema.parse({
      managed_by: "s.yaml",
      jobs: [
        job("a"),
        job("a"),
        job("b", { schedule: { type: "once", delay: "1h" } }),
        job("c", { paused: "yes", managed_by: "other" }),
      ],
    });
    const checked = checkFileJobs(request);
    expect(checked.errors).toEqual([
      { path: "jobs.2.schedule.delay", message: expect.stringContaining("give `at`") },
      { path: "jobs.3.managed_by", message: expect.stringContaining("top of the file") },
      { path: "jobs.3.paused", message: "must be true or false" },
      { path: "jobs.0.name", message: '"a" is also the name of jobs.1: names must be unique in a file' },
      { path: "jobs.1.name", message: '"a" is also the name of jobs.0: names must be unique in a file' },
    ]);
    expect(checked.items[0]?.input.managed_by).toBe("s.yaml");
  });
});

describe("matchJob", () => {
  const existing = (id: string, managedBy: string | null, createdAtMs = 1): ExistingJob => ({
    id,
    name: "n",
    managedBy,
    status: "ACTIVE",
    createdAtMs,
    qstash: false,
  });

  it("takes the oldest job it manages, creates on a free name, and adopts only when asked", () => {
    expect(
      matchJob([existing("j2", "s.yaml", 2), existing("j1", "s.yaml", 1)], "s.yaml", false),
    ).toMatchObject({
      kind: "managed",
      existing: { id: "j1" },
    });
    expect(matchJob([], "s.yaml", false)).toEqual({ kind: "new" });
    expect(matchJob([existing("j1", null)], "s.yaml", false).kind).toBe("conflict");
    expect(matchJob([existing("j1", null)], "s.yaml", true)).toMatchObject({ kind: "adopt" });
    expect(matchJob([existing("j1", "other.yaml")], "s.yaml", true).kind).toBe("conflict");
    expect(matchJob([existing("j1", null), existing("j2", null)], "s.yaml", true).kind).toBe("conflict");
  });
});

describe("names", () => {
  it("orders by code point, as SQLite orders UTF-8", () => {
    expect(compareNames("\u{1F600}", "\uFF21")).toBeGreaterThan(0);
    expect(nameInRange("b", { from: "b", to: "c" })).toBe(true);
    expect(nameInRange("c", { from: "b", to: "c" })).toBe(false);
  });
});

describe("diff", () => {
  it("shows the leaves that differ, and hides credential-like header values", () => {
    const before = {
      retry: { max_attempts: 3 },
      target: { url: "u", headers: { authorization: "Bearer a" } },
    };
    const after = {
      retry: { max_attempts: 5 },
      target: { url: "u", headers: { authorization: "Bearer b" } },
    };
    expect(hideSecrets(diffJson(before, after))).toEqual([
      { path: "retry.max_attempts", before: 3, after: 5 },
      { path: "target.headers.authorization", before: "(hidden)", after: "(hidden)" },
    ]);
  });

  it("compares a file's instants as a create stores them", () => {
    const spec = jobCreateSchema.parse(
      job("a", { schedule: { type: "once", at: "2099-01-01T02:00:00+02:00" }, start_at: null }),
    );
    expect(comparableSpec(spec)?.schedule).toEqual({ type: "once", at: "2099-01-01T00:00:00.000Z" });
  });
});

describe("scheduleFileJsonSchema", () => {
  it("describes every field of a job, and the file's own `paused`", () => {
    const schema = scheduleFileJsonSchema() as {
      properties: { jobs: { items: { properties: Record<string, unknown> } } };
    };
    const fields = Object.keys(schema.properties.jobs.items.properties);
    expect(fields).toEqual(
      expect.arrayContaining(["schedule", "schedules", "calendars", "target", "retry", "paused"]),
    );
    expect(fields).not.toContain("managed_by");
  });
});
