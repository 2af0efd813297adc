import { describe, expect, it } from "vitest";
import { parseJsonl } from "../../src/cli/commands/import";
import { headersFromFlags, parseBody, scheduleFromFlags } from "../../src/cli/job-flags";
import { renderJob } from "../../src/cli/job-view";
import { resolveCommand } from "../../src/cli/main";
import { progressLine } from "../../src/cli/progress";
import { cellText, formatInZone, renderKeyValues, renderProblem, renderTable } from "../../src/cli/render";
import type { Job } from "../../src/client/types";
import { sampleJob } from "./stub-server";

describe("renderTable", () => {
  const columns = [
    { header: "ID", value: (row: { id: string; n: number | null }) => row.id },
    { header: "N", value: (row: { id: string; n: number | null }) => row.n },
  ];

  it("pads every column but the last to its widest cell", () => {
    expect(
      renderTable(columns, [
        { id: "a", n: 1 },
        { id: "longer", n: null },
      ]),
    ).toBe("ID      N\na       1\nlonger  -\n");
  });

  it("prints the empty text when there are no rows", () => {
    expect(renderTable(columns, [], "no jobs")).toBe("no jobs\n");
  });

  it("cuts long cells and flattens newlines", () => {
    expect(cellText("a\nb", 10)).toBe("a b");
    expect(cellText("x".repeat(12), 10)).toBe(`${"x".repeat(9)}…`);
    expect(cellText({ a: 1 }, 20)).toBe('{"a":1}');
  });
});

describe("renderKeyValues", () => {
  it("aligns values and continues arrays on later lines", () => {
    expect(
      renderKeyValues([
        ["id", "job_1"],
        ["next fires", ["t1", "t2"]],
        ["none", []],
      ]),
    ).toBe("id          job_1\nnext fires  t1\n            t2\nnone        -\n");
  });
});

describe("renderProblem", () => {
  it("names the status, code and every field path", () => {
    const text = renderProblem({
      type: "about:blank",
      title: "Invalid",
      status: 422,
      code: "idempotency_conflict",
      errors: [{ path: "", message: "body differs" }],
    });
    expect(text).toBe("error: Invalid (422 idempotency_conflict)\n  (body): body differs\n");
  });
});

describe("formatInZone", () => {
  it("shows the wall time across a DST change", () => {
    expect(formatInZone("2026-03-08T07:30:00.000Z", "America/New_York")).toBe(
      "2026-03-08 03:30:00 EDT (Sun)",
    );
    expect(formatInZone("2026-03-08T06:30:00.000Z", "America/New_York")).toBe(
      "2026-03-08 01:30:00 EST (Sun)",
    );
  });
});

describe("job flags", () => {
  it("builds each schedule kind", () => {
    expect(scheduleFromFlags({ cron: "0 9 * * *" })).toEqual({
      type: "cron",
      expr: "0 9 * * *",
      timezone: "UTC",
    });
    expect(scheduleFromFlags({ every: "60000" })).toEqual({ type: "interval", every: 60000 });
    expect(() => scheduleFromFlags({})).toThrow(/exactly one schedule/);
    expect(() => scheduleFromFlags({ every: "1m", tz: "UTC" })).toThrow(/--tz applies to --cron/);
  });

  it("parses headers and bodies", () => {
    expect(headersFromFlags(["x-a: 1", "X-B:two: three"])).toEqual({ "x-a": "1", "X-B": "two: three" });
    expect(() => headersFromFlags(["nocolon"])).toThrow(/name: value/);
    expect(parseBody('{"a":1}')).toEqual({ a: 1 });
    expect(parseBody("hello")).toBe("hello");
  });
});

describe("resolveCommand", () => {
  it("finds the command words around flags, skipping global flag values", () => {
    const { command, rest } = resolveCommand(["--url", "http://x", "jobs", "--json", "get", "job_1"]);
    expect(command?.path).toEqual(["jobs", "get"]);
    expect(rest).toEqual(["--url", "http://x", "--json", "job_1"]);
  });

  it("stops at an unknown word", () => {
    expect(resolveCommand(["jobs", "explode", "x"]).command).toBeUndefined();
  });
});

describe("parseJsonl", () => {
  it("keeps 1-based line numbers and skips blank lines", () => {
    const { jobs, failures } = parseJsonl('{"name":"a"}\r\n\n[1]\n{"name":"b"}\n');
    expect(jobs.map((j) => j.line)).toEqual([1, 4]);
    expect(failures).toEqual([{ line: 3, title: "invalid JSON: expected a JSON object", errors: [] }]);
  });
});

describe("progressLine", () => {
  it("draws a proportional bar with counts", () => {
    expect(progressLine(500, 1000, 490, 10)).toBe(
      `[${"#".repeat(15)}${"-".repeat(15)}]  500/1000  created 490  failed 10`,
    );
  });
});

describe("renderJob", () => {
  it("says when the search bound cut the next fire times short", () => {
    const job = {
      ...(sampleJob() as unknown as Job),
      next_fire_times: ["2027-01-01T00:00:00.000Z"],
      next_fire_times_stopped: {
        reason: "horizon" as const,
        searched_through: "2032-01-06T00:00:00.000Z",
        detail: "the search stopped: no instant left to run ...; later instants may run",
      },
    };
    expect(renderJob(job)).toMatch(/next fires stopped\s+the search stopped: .*later instants may run/);
    expect(renderJob({ ...job, next_fire_times_stopped: undefined })).toMatch(/next fires stopped\s+-\n/);
  });
});
