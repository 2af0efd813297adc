import { describe, expect, it } from "vitest";
import { CRON_SEARCH_BUDGET, LOOKUP_COST, searchCronFireTimes } from "../../src/core/cron/next";
import { parseCron } from "../../src/core/cron/parse";
import { type JobSpec, jobCreateSchema, type Schedule, validJobFields } from "../../src/core/jobs/job-spec";
import { firstFire, upcomingFires } from "../../src/core/jobs/job-timeline";
import { jobSpecIssues, normalizeJobSpec } from "../../src/core/jobs/normalize";
import { previewFireTimes } from "../../src/core/jobs/preview";
import { backfillInstants } from "../../src/core/schedules/backfill";
import { BATCH_SEARCH_UNITS, checkedFireTimes } from "../../src/core/schedules/schedule-check";

const NOW_MS = Date.parse("2026-12-01T10:00:00.000Z");
const SKIP = { gap: "skip", overlap: "first" } as const;
const at = (iso: string) => Date.parse(iso);

function cronSpec(expr: string) {
  const parsed = parseCron(expr);
  if (!parsed.ok) throw new Error(parsed.issues.join("; "));
  return parsed.spec;
}

function jobSpec(overrides: Record<string, unknown>): JobSpec {
  return jobCreateSchema.parse({ name: "n", target: { url: "https://example.com" }, ...overrides });
}

describe("searchCronFireTimes (the bounded search behind every cron fire time)", () => {
  it("walks 400 years of gap-only matches and ends with none, within the budget", () => {
    // 01:00 on the last Sunday of March is always inside London's 01:00 -> 02:00 gap.
    const search = searchCronFireTimes(cronSpec("0 1 * 3 7L"), "Europe/London", SKIP, NOW_MS, 1);
    expect(search.fireTimesMs).toEqual([]);
    expect(search.budgetExhausted).toBe(false);
    expect(search.candidates).toBe(400);
    expect(search.dropped).toBe(400);
  });

  it("stops the worst case at the budget: every second of a gap hour, every year, none firing", () => {
    const search = searchCronFireTimes(cronSpec("* * 1 * 3 0L"), "Europe/London", SKIP, NOW_MS, 1000);
    expect(search.budgetExhausted).toBe(true);
    expect(search.fireTimesMs).toEqual([]);
    // One step past the budget at most: one wall time and the few offsets it looked up.
    expect(search.cost).toBeGreaterThanOrEqual(CRON_SEARCH_BUDGET);
    expect(search.cost).toBeLessThan(CRON_SEARCH_BUDGET + 1 + 100 * LOOKUP_COST);
    expect(search.candidates).toBeLessThanOrEqual(CRON_SEARCH_BUDGET);
  });

  it("spends a tiny part of the budget on ordinary schedules", () => {
    const daily = searchCronFireTimes(cronSpec("0 9 * * *"), "Europe/Berlin", undefined, NOW_MS, 1000);
    expect(daily.fireTimesMs).toHaveLength(1000);
    expect(daily.budgetExhausted).toBe(false);
    const everySecond = searchCronFireTimes(cronSpec("* * * * * *"), "UTC", undefined, NOW_MS, 1000);
    expect(everySecond.cost).toBeLessThanOrEqual(1001);
  });
});

describe("checkedFireTimes", () => {
  const cron = (expr: string, dst?: typeof SKIP): Schedule => ({
    type: "cron",
    expr,
    timezone: "Europe/London",
    ...(dst ? { dst } : {}),
  });

  it("refuses a cron whose every match falls in a DST gap it skips, as never firing", () => {
    const result = checkedFireTimes(cron("0 1 * 3 7L", SKIP), NOW_MS, 5);
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "schedule.expr", message: expect.stringContaining("expression can never fire") }],
    });
    expect(JSON.stringify(result)).toContain('dst.gap is \\"skip\\"');
  });

  it("accepts the same expression with gap: shift (fires just after the gap)", () => {
    expect(checkedFireTimes(cron("0 1 * 3 7L"), NOW_MS, 1)).toEqual({
      ok: true,
      fireTimesMs: [at("2027-03-28T01:00:00Z")],
    });
  });

  it("refuses a schedule too costly to evaluate, naming the expression", () => {
    const result = checkedFireTimes(cron("* * 1 * 3 0L", SKIP), NOW_MS, 1);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues[0]).toEqual({
      path: "schedule.expr",
      message: expect.stringContaining("too costly to evaluate"),
    });
  });
});

describe("an interval job's first fire (one rule for the shard, next_fire_times and the preview)", () => {
  const jobId = "job_interval";
  const cases: [name: string, overrides: Record<string, unknown>, firstIso: string][] = [
    [
      "no anchor: one `every` after creation",
      { schedule: { type: "interval", every: "15m" } },
      "2026-12-01T10:15:00Z",
    ],
    [
      "a future anchor: the anchor itself",
      { schedule: { type: "interval", every: "15m", anchor: "2026-12-01T12:00:00Z" } },
      "2026-12-01T12:00:00Z",
    ],
    [
      "a past anchor: the next step of its grid after creation",
      { schedule: { type: "interval", every: "1h", anchor: "2026-01-01T00:30:00Z" } },
      "2026-12-01T10:30:00Z",
    ],
    [
      "no anchor, a future start_at: start_at itself",
      { schedule: { type: "interval", every: "15m" }, start_at: "2026-12-02T00:00:00Z" },
      "2026-12-02T00:00:00Z",
    ],
  ];

  it.each(cases)("%s", (_name, overrides, firstIso) => {
    const normalized = normalizeJobSpec(jobSpec(overrides), NOW_MS);
    if (!normalized.ok) throw new Error(JSON.stringify(normalized.issues));
    const shardFirst = firstFire(normalized.spec, jobId, NOW_MS);
    const createResponseFirst = upcomingFires(normalized.spec, jobId, NOW_MS, 1)[0];
    expect(shardFirst?.scheduledAtMs).toBe(at(firstIso));
    expect(createResponseFirst).toEqual(shardFirst);
    if (overrides.start_at === undefined) {
      const preview = previewFireTimes(overrides.schedule as Schedule, NOW_MS, NOW_MS, 1);
      expect(preview).toEqual({ ok: true, fireTimesMs: [at(firstIso)] });
    }
  });

  it("still fires a one-shot accepted within the grace although its `at` has just passed", () => {
    const normalized = normalizeJobSpec(
      jobSpec({ schedule: { type: "once", at: "2026-12-01T09:59:50Z" } }),
      NOW_MS,
    );
    if (!normalized.ok) throw new Error("refused");
    expect(firstFire(normalized.spec, jobId, NOW_MS)?.scheduledAtMs).toBe(at("2026-12-01T09:59:50Z"));
  });
});

describe("backfillInstants", () => {
  it("never includes an instant later than now", () => {
    const hourly: Schedule = { type: "cron", expr: "0 * * * *", timezone: "UTC" };
    const instants = backfillInstants(hourly, at("2026-12-01T07:00:00Z"), at("2026-12-01T13:00:00Z"), NOW_MS);
    expect(instants).toEqual([
      at("2026-12-01T07:00:00Z"),
      at("2026-12-01T08:00:00Z"),
      at("2026-12-01T09:00:00Z"),
      NOW_MS,
    ]);
  });
});

describe("validJobFields and jobSpecIssues (every problem in one answer)", () => {
  it("keeps the fields that are valid on their own", () => {
    const fields = validJobFields({
      name: "",
      schedule: { type: "cron", expr: "61 * * * *", timezone: "UTC" },
      start_at: "2026-12-02T00:00:00Z",
      target: { url: "https://example.com" },
    });
    expect(fields.name).toBeUndefined();
    expect(fields.schedule).toBeUndefined();
    expect(fields.start_at).toBe("2026-12-02T00:00:00Z");
    expect(fields.target?.type === "http" && fields.target.url).toBe("https://example.com");
    expect(fields.misfire?.grace).toBe("60s");
  });

  it("checks the cross-field rules on those fields, whatever else is wrong", () => {
    const body = {
      name: 5,
      schedule: { type: "cron", expr: "0 1 * 3 7L", timezone: "Europe/London", dst: SKIP },
      start_at: "2026-12-02T00:00:00Z",
      end_at: "2026-12-01T00:00:00Z",
    };
    expect(jobSpecIssues(validJobFields(body), NOW_MS).map((issue) => issue.path)).toEqual([
      "end_at",
      "schedule.expr",
    ]);
  });
});

describe("the cron schedule schema", () => {
  it("names a bad expression and a bad zone together", () => {
    const parsed = jobCreateSchema.shape.schedule.safeParse({
      type: "cron",
      expr: "61 * * * *",
      timezone: "Mars/Base",
    });
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["expr", "timezone"]);
  });
});

describe("a request's shared search allowance (a batch)", () => {
  const worst: Schedule = {
    type: "cron",
    expr: "* * 1 * 3 0L",
    timezone: "Europe/London",
    dst: SKIP,
  };

  it("bounds what all of a request's searches spend together", () => {
    const allowance = { remainingUnits: BATCH_SEARCH_UNITS };
    const messages: string[] = [];
    for (let i = 0; i < 15; i++) {
      const result = checkedFireTimes(worst, NOW_MS, 1, allowance);
      messages.push(result.ok ? "ok" : (result.issues[0]?.message ?? ""));
    }
    expect(allowance.remainingUnits).toBe(0);
    expect(messages.slice(0, 10).every((message) => message.includes("too costly to evaluate"))).toBe(true);
    expect(messages.slice(10).every((message) => message.includes("spent its search budget"))).toBe(true);
  });

  it("costs an ordinary schedule almost nothing of it", () => {
    const allowance = { remainingUnits: BATCH_SEARCH_UNITS };
    const daily: Schedule = { type: "cron", expr: "0 9 * * *", timezone: "Europe/Berlin" };
    for (let i = 0; i < 1000; i++) expect(checkedFireTimes(daily, NOW_MS, 1, allowance).ok).toBe(true);
    expect(BATCH_SEARCH_UNITS - allowance.remainingUnits).toBeLessThan(CRON_SEARCH_BUDGET / 2);
  });
});
