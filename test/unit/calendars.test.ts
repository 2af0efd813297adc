import { describe, expect, it } from "vitest";
import { jobCreateSchema, type Schedule } from "../../src/core/jobs/job-spec";
import { upcomingFires } from "../../src/core/jobs/job-timeline";
import { jobSpecIssues } from "../../src/core/jobs/normalize";
import { upcomingRunFires } from "../../src/core/jobs/run-search";
import { missingScheduleIssues, scheduleChoiceIssues } from "../../src/core/jobs/schedule-set-check";
import {
  compileExclusions,
  type ExclusionSet,
  exclusionSetSchema,
  isExcluded,
} from "../../src/core/schedules/exclusions";
import {
  includedFireTimes,
  MAX_LISTED_EXCLUSIONS,
  unionFireTimes,
} from "../../src/core/schedules/schedule-set";

const iso = (ms: number) => new Date(ms).toISOString();
const cron = (expr: string, timezone = "Europe/London"): Extract<Schedule, { type: "cron" }> => ({
  type: "cron",
  expr,
  timezone,
});

describe("unionFireTimes", () => {
  it("lists an instant two specs share once, across the spring-forward change", () => {
    const times = unionFireTimes(
      [cron("0 9 * * *"), cron("0 9,17 * * *")],
      Date.parse("2026-03-28T00:00:00Z"),
      4,
    );
    expect(times.map(iso)).toEqual([
      "2026-03-28T09:00:00.000Z",
      "2026-03-28T17:00:00.000Z",
      "2026-03-29T08:00:00.000Z", // 09:00 BST
      "2026-03-29T16:00:00.000Z",
    ]);
  });

  it("merges specs of different kinds in time order", () => {
    const times = unionFireTimes(
      [cron("0 12 * * *", "UTC"), { type: "once", at: "2026-01-01T06:00:00.000Z" }],
      Date.parse("2026-01-01T00:00:00Z"),
      3,
    );
    expect(times.map(iso)).toEqual([
      "2026-01-01T06:00:00.000Z",
      "2026-01-01T12:00:00.000Z",
      "2026-01-02T12:00:00.000Z",
    ]);
  });
});

type ExclusionCase = [zone: string, rule: ExclusionSet["rules"][number], instant: string, excluded: boolean];

describe("isExcluded", () => {
  describe("evaluates a local date as the whole local day, DST days included", () => {
    const christmas = { type: "date", date: "2026-03-29" } as const;
    const fallBack = { type: "date", date: "2026-10-25" } as const;
    const sydneyEnd = { type: "date", date: "2026-04-05" } as const;
    const cases: ExclusionCase[] = [
      ["Europe/London", christmas, "2026-03-28T23:59:59Z", false],
      ["Europe/London", christmas, "2026-03-29T00:30:00Z", true],
      ["Europe/London", christmas, "2026-03-29T22:59:59Z", true], // 23:59:59 BST
      ["Europe/London", christmas, "2026-03-29T23:00:00Z", false], // 00:00 BST on the 30th
      ["Europe/London", fallBack, "2026-10-24T22:59:00Z", false],
      ["Europe/London", fallBack, "2026-10-24T23:30:00Z", true], // 00:30 BST on the 25th
      ["Europe/London", fallBack, "2026-10-25T23:30:00Z", true], // 23:30 GMT: the 25-hour day
      ["Europe/London", fallBack, "2026-10-26T00:00:00Z", false],
      ["Australia/Sydney", sydneyEnd, "2026-04-04T12:59:00Z", false],
      ["Australia/Sydney", sydneyEnd, "2026-04-04T13:00:00Z", true], // 00:00 AEDT
      ["Australia/Sydney", sydneyEnd, "2026-04-05T13:59:00Z", true], // 23:59 AEST
      ["Australia/Sydney", sydneyEnd, "2026-04-05T14:00:00Z", false],
      ["Asia/Kathmandu", { type: "weekly", days: ["sat"] }, "2026-03-27T18:14:00Z", false], // Fri 23:59 +05:45
      ["Asia/Kathmandu", { type: "weekly", days: ["sat"] }, "2026-03-27T18:15:00Z", true],
      ["Asia/Kolkata", { type: "range", from: "2026-12-24", to: "2026-12-26" }, "2026-12-26T18:29:00Z", true],
      [
        "Asia/Kolkata",
        { type: "range", from: "2026-12-24", to: "2026-12-26" },
        "2026-12-26T18:30:00Z",
        false,
      ],
    ];
    it.each(cases)("in %s, %j at %s: excluded %s", (timezone, rule, instant, excluded) => {
      const compiled = compileExclusions([{ timezone, rules: [rule] }]);
      expect(isExcluded(Date.parse(instant), compiled)).toBe(excluded);
    });
  });

  it("remembers a day without mixing up instants of the next one", () => {
    const compiled = compileExclusions([{ timezone: "UTC", rules: [{ type: "date", date: "2026-01-01" }] }]);
    expect(isExcluded(Date.parse("2026-01-01T23:00:00Z"), compiled)).toBe(true);
    expect(isExcluded(Date.parse("2026-01-02T00:00:00Z"), compiled)).toBe(false);
    expect(isExcluded(Date.parse("2026-01-01T00:00:00Z"), compiled)).toBe(true);
  });
});

describe("exclusionSetSchema", () => {
  it("names every bad rule field", () => {
    const result = exclusionSetSchema.safeParse({
      timezone: "Mars/Olympus",
      rules: [
        { type: "date", date: "2026-13-01" },
        { type: "range", from: "2026-02-02", to: "2026-02-01" },
        { type: "weekly", days: ["sat", "sat"] },
      ],
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join("."));
    expect(paths).toEqual(["timezone", "rules.0.date", "rules.1.to", "rules.2.days"]);
  });
});

describe("includedFireTimes", () => {
  const weekdays9 = [cron("0 9 * * *")];
  const holidays = compileExclusions([
    {
      timezone: "Europe/London",
      rules: [
        { type: "weekly", days: ["sat", "sun"] },
        { type: "date", date: "2026-04-03" },
      ],
    },
  ]);

  it("leaves out weekends and holidays and reports them", () => {
    const search = includedFireTimes(weekdays9, holidays, Date.parse("2026-04-02T00:00:00Z"), 2);
    expect(search.fireTimesMs.map(iso)).toEqual(["2026-04-02T08:00:00.000Z", "2026-04-06T08:00:00.000Z"]);
    expect(search.excludedMs.map(iso)).toEqual([
      "2026-04-03T08:00:00.000Z",
      "2026-04-04T08:00:00.000Z",
      "2026-04-05T08:00:00.000Z",
    ]);
    expect(search.exhausted).toBe(false);
  });

  it("stops at the search limit when every instant is excluded", () => {
    const always = compileExclusions([
      {
        timezone: "UTC",
        rules: [{ type: "weekly", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] }],
      },
    ]);
    const search = includedFireTimes([cron("* * * * *", "UTC")], always, 0, 1);
    expect(search.fireTimesMs).toEqual([]);
    expect(search.exhausted).toBe(true);
    expect(search.excludedMs).toHaveLength(MAX_LISTED_EXCLUSIONS);
  });

  it("jumps past an excluded day instead of examining each of its instants", () => {
    const today = compileExclusions([{ timezone: "UTC", rules: [{ type: "date", date: "2026-12-01" }] }]);
    const secondly = [cron("*/2 * * * * *", "UTC"), cron("*/3 * * * * *", "UTC")];
    const search = includedFireTimes(secondly, today, Date.parse("2026-12-01T11:30:00Z"), 2);
    expect(search.fireTimesMs.map(iso)).toEqual(["2026-12-02T00:00:00.000Z", "2026-12-02T00:00:02.000Z"]);
    expect(search.exhausted).toBe(false);
    expect(search.excludedMs.length).toBeLessThanOrEqual(24);
    const spec = jobCreateSchema.parse({
      name: "s",
      schedules: secondly,
      target: { url: "https://example.com/" },
    });
    const runs = upcomingRunFires(spec, "job_s", Date.parse("2026-12-01T11:30:00Z"), 1, today);
    expect(runs.map((fire) => iso(fire.scheduledAtMs))).toEqual(["2026-12-02T00:00:00.000Z"]);
  });
});

describe("upcomingFires with exclusions", () => {
  const spec = jobCreateSchema.parse({
    name: "two specs",
    schedules: [cron("0 9 * * *"), cron("30 0 * * *")],
    target: { url: "https://example.com/hook" },
  });
  const bankHoliday = compileExclusions([
    { timezone: "Europe/London", rules: [{ type: "date", date: "2026-03-29" }] },
  ]);

  it("flags excluded instants for the shard and leaves them out of the run list", () => {
    const afterMs = Date.parse("2026-03-28T12:00:00Z");
    const all = upcomingFires(spec, "job_1", afterMs, 3, bankHoliday);
    expect(all.map((fire) => [iso(fire.scheduledAtMs), fire.excluded ?? false])).toEqual([
      ["2026-03-29T00:30:00.000Z", true], // 00:30 GMT on the 29th, before the change
      ["2026-03-29T08:00:00.000Z", true], // 09:00 BST
      ["2026-03-29T23:30:00.000Z", false], // 00:30 BST on the 30th
    ]);
    const runs = upcomingRunFires(spec, "job_1", afterMs, 2, bankHoliday);
    expect(runs.map((fire) => iso(fire.scheduledAtMs))).toEqual([
      "2026-03-29T23:30:00.000Z",
      "2026-03-30T08:00:00.000Z",
    ]);
  });
});

describe("job spec checks for several specs and calendars", () => {
  const nowMs = Date.parse("2026-01-01T00:00:00Z");
  const base = { name: "j", target: { url: "https://example.com/" } };

  it("refuses both schedule and schedules, and neither when asked to", () => {
    expect(
      scheduleChoiceIssues({ ...base, schedule: cron("0 9 * * *"), schedules: [cron("0 9 * * *")] }),
    ).toEqual([{ path: "schedules", message: expect.stringContaining("exactly one") }]);
    expect(missingScheduleIssues(base)).toEqual([
      { path: "schedule", message: expect.stringContaining("is required") },
    ]);
  });

  it("names unknown calendars and a spec that can never fire, by index", () => {
    const fields = jobCreateSchema.parse({
      ...base,
      schedules: [cron("0 9 * * *"), cron("0 1 * 3 7L", "Europe/London")],
      calendars: ["uk-holidays", "nope"],
    });
    fields.schedules = [cron("0 9 * * *"), { ...cron("0 1 * 3 7L"), dst: { gap: "skip", overlap: "first" } }];
    const calendars = new Map([
      ["uk-holidays", { timezone: "Europe/London", rules: [{ type: "date" as const, date: "2026-12-25" }] }],
    ]);
    const paths = jobSpecIssues(fields, nowMs, { calendars }).map((issue) => issue.path);
    expect(paths).toEqual(["schedules.1.expr", "calendars.1"]);
  });

  it("refuses exclusions that leave nothing to run", () => {
    const fields = jobCreateSchema.parse({
      ...base,
      schedule: cron("0 9 * * 6", "UTC"),
      exclude: { timezone: "UTC", rules: [{ type: "weekly", days: ["sat"] }] },
    });
    const issues = jobSpecIssues(fields, nowMs, { calendars: new Map() });
    expect(issues).toEqual([{ path: "exclude", message: expect.stringContaining("would never run") }]);
  });
});
