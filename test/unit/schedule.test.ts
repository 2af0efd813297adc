import { IANAZone } from "luxon";
import { describe, expect, it } from "vitest";
import { cronExpressionIssues, isWildcardHourCron } from "../../src/core/cron/validate";
import { zoneOffsets } from "../../src/core/cron/zone";
import { type DstPolicy, scheduleSchema } from "../../src/core/jobs/job-spec";
import { nextFireTimes } from "../../src/core/schedules/schedule";

type Case = [expr: string, timezone: string, from: string, expected: string[], dst?: DstPolicy];

const SKIP: DstPolicy = { gap: "skip", overlap: "first" };
const LAST: DstPolicy = { gap: "shift", overlap: "last" };
const BOTH: DstPolicy = { gap: "shift", overlap: "both" };

function cronTimes(expr: string, timezone: string, from: string, count: number, dst?: DstPolicy): string[] {
  const schedule = { type: "cron" as const, expr, timezone, ...(dst ? { dst } : {}) };
  expect(scheduleSchema.safeParse(schedule).success).toBe(true);
  return nextFireTimes(schedule, Date.parse(from), count).map((atMs) => new Date(atMs).toISOString());
}

function runCases(cases: Case[]): void {
  it.each(cases)("%s in %s after %s", (expr, timezone, from, expected, dst) => {
    const utc = expected.map((value) => new Date(value).toISOString());
    expect(cronTimes(expr, timezone, from, expected.length, dst)).toEqual(utc);
  });
}

describe("nextFireTimes for cron schedules", () => {
  describe("when an explicit-hour wall time falls in a DST gap", () => {
    describe("with gap: shift (default) it fires shifted forward by the gap length", () => {
      runCases([
        // New York 2026-03-08 02:00 EST -> 03:00 EDT: 02:30 fires at 03:30 EDT.
        [
          "30 2 * * *",
          "America/New_York",
          "2026-03-08T05:00:00Z",
          ["2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"],
        ],
        // Asked from inside the shifted hour (03:00 EDT): the shifted 03:30 is still to come.
        ["30 2 * * *", "America/New_York", "2026-03-08T07:00:00Z", ["2026-03-08T07:30:00Z"]],
        // The shifted 02:30 coincides with the normal 03:30: fires once.
        [
          "30 2,3 * * *",
          "America/New_York",
          "2026-03-08T05:00:00Z",
          ["2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"],
        ],
        // London 2026-03-29 01:00 GMT -> 02:00 BST.
        ["30 1 * * *", "Europe/London", "2026-03-29T00:00:00Z", ["2026-03-29T01:30:00Z"]],
        // Sydney (southern hemisphere) 2026-10-04 02:00 AEST -> 03:00 AEDT.
        [
          "30 2 * * *",
          "Australia/Sydney",
          "2026-10-03T12:00:00Z",
          ["2026-10-03T16:30:00Z", "2026-10-04T15:30:00Z"],
        ],
        // Lord Howe, a 30-minute gap: 02:00 +10:30 -> 02:30 +11; 02:15 fires at 02:45 +11.
        [
          "15 2 * * *",
          "Australia/Lord_Howe",
          "2026-10-03T12:00:00Z",
          ["2026-10-03T15:45:00Z", "2026-10-04T15:15:00Z"],
        ],
        // Santiago, a gap at midnight: 2026-09-06 00:00 -04 -> 01:00 -03.
        [
          "30 0 * * *",
          "America/Santiago",
          "2026-09-05T12:00:00Z",
          ["2026-09-06T04:30:00Z", "2026-09-07T03:30:00Z"],
        ],
        // Troll, a 2-hour gap (01:00 +00 -> 03:00 +02): shifted 02:15/02:30 come after the normal 03:15/03:30.
        [
          "15,30 2,3 * * *",
          "Antarctica/Troll",
          "2026-03-29T00:00:00Z",
          ["2026-03-29T01:15:00Z", "2026-03-29T01:30:00Z", "2026-03-29T02:15:00Z", "2026-03-29T02:30:00Z"],
        ],
      ]);
    });

    describe("with gap: skip it drops that occurrence", () => {
      runCases([
        ["30 2 * * *", "America/New_York", "2026-03-08T05:00:00Z", ["2026-03-09T06:30:00Z"], SKIP],
        ["30 1 * * *", "Europe/London", "2026-03-29T00:00:00Z", ["2026-03-30T00:30:00Z"], SKIP],
        ["30 2 * * *", "Australia/Sydney", "2026-10-03T12:00:00Z", ["2026-10-04T15:30:00Z"], SKIP],
        ["15 2 * * *", "Australia/Lord_Howe", "2026-10-03T12:00:00Z", ["2026-10-04T15:15:00Z"], SKIP],
        ["30 0 * * *", "America/Santiago", "2026-09-05T12:00:00Z", ["2026-09-07T03:30:00Z"], SKIP],
      ]);
    });
  });

  describe("when an explicit-hour wall time occurs twice", () => {
    describe("with overlap: first (default) it fires once, at the first pass", () => {
      runCases([
        // New York 2026-11-01 02:00 EDT -> 01:00 EST.
        [
          "30 1 * * *",
          "America/New_York",
          "2026-11-01T04:00:00Z",
          ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
        ],
        // Asked between the passes: the second pass does not fire.
        ["30 1 * * *", "America/New_York", "2026-11-01T05:45:00Z", ["2026-11-02T06:30:00Z"]],
        [
          "30 1 * * *",
          "Europe/London",
          "2026-10-25T00:00:00Z",
          ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
        ],
        [
          "30 2 * * *",
          "Australia/Sydney",
          "2026-04-04T12:00:00Z",
          ["2026-04-04T15:30:00Z", "2026-04-05T16:30:00Z"],
        ],
        // Lord Howe, a 30-minute overlap: 02:00 +11 -> 01:30 +10:30.
        [
          "45 1 * * *",
          "Australia/Lord_Howe",
          "2026-04-04T12:00:00Z",
          ["2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"],
        ],
        // Santiago, an overlap before midnight: 2026-04-05 00:00 -03 -> 2026-04-04 23:00 -04.
        [
          "30 23 * * *",
          "America/Santiago",
          "2026-04-04T12:00:00Z",
          ["2026-04-05T02:30:00Z", "2026-04-06T03:30:00Z"],
        ],
      ]);
    });

    describe("with overlap: last it fires once, at the second pass", () => {
      runCases([
        [
          "30 1 * * *",
          "America/New_York",
          "2026-11-01T04:00:00Z",
          ["2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z"],
          LAST,
        ],
        ["30 1 * * *", "America/New_York", "2026-11-01T05:45:00Z", ["2026-11-01T06:30:00Z"], LAST],
        ["30 1 * * *", "Europe/London", "2026-10-25T00:00:00Z", ["2026-10-25T01:30:00Z"], LAST],
        ["30 2 * * *", "Australia/Sydney", "2026-04-04T12:00:00Z", ["2026-04-04T16:30:00Z"], LAST],
        ["45 1 * * *", "Australia/Lord_Howe", "2026-04-04T12:00:00Z", ["2026-04-04T15:15:00Z"], LAST],
        ["30 23 * * *", "America/Santiago", "2026-04-04T12:00:00Z", ["2026-04-05T03:30:00Z"], LAST],
      ]);
    });

    describe("with overlap: both it fires in both passes", () => {
      runCases([
        [
          "30 1 * * *",
          "America/New_York",
          "2026-11-01T04:00:00Z",
          ["2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z"],
          BOTH,
        ],
        [
          "30 2 * * *",
          "Australia/Sydney",
          "2026-04-04T12:00:00Z",
          ["2026-04-04T15:30:00Z", "2026-04-04T16:30:00Z"],
          BOTH,
        ],
        [
          "45 1 * * *",
          "Australia/Lord_Howe",
          "2026-04-04T12:00:00Z",
          ["2026-04-04T14:45:00Z", "2026-04-04T15:15:00Z"],
          BOTH,
        ],
        [
          "30 23 * * *",
          "America/Santiago",
          "2026-04-04T12:00:00Z",
          ["2026-04-05T02:30:00Z", "2026-04-05T03:30:00Z"],
          BOTH,
        ],
      ]);
    });
  });

  describe("when the hour field is * or */n (elapsed time, dst option ignored)", () => {
    runCases([
      // Gap: 02:xx does not exist and does not fire.
      [
        "*/30 * * * *",
        "America/New_York",
        "2026-03-08T06:00:00Z",
        ["2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"],
      ],
      // Overlap: 01:00 and 01:30 fire in both passes.
      [
        "0,30 * * * *",
        "America/New_York",
        "2026-11-01T05:00:00Z",
        ["2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z"],
      ],
      [
        "30 * * * *",
        "America/New_York",
        "2026-11-01T05:00:00Z",
        ["2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z"],
        SKIP,
      ],
      ["@hourly", "Europe/London", "2026-10-25T00:30:00Z", ["2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"]],
      [
        "0 */2 * * *",
        "Australia/Sydney",
        "2026-10-03T13:30:00Z",
        ["2026-10-03T14:00:00Z", "2026-10-03T17:00:00Z"],
      ],
      // Kathmandu is +05:45 all year: 00:00Z is 05:45 local.
      [
        "*/30 * * * *",
        "Asia/Kathmandu",
        "2026-06-01T00:00:00Z",
        ["2026-06-01T00:15:00Z", "2026-06-01T00:45:00Z"],
      ],
    ]);
  });

  describe("in zones and days without a transition", () => {
    runCases([
      [
        "0 9 * * *",
        "Asia/Kathmandu",
        "2026-06-01T00:00:00Z",
        ["2026-06-01T03:15:00Z", "2026-06-02T03:15:00Z"],
      ],
      ["0 9 * * MON-FRI", "Europe/Berlin", "2026-07-03T08:00:00Z", ["2026-07-06T07:00:00Z"]],
      ["0 0 1 1 *", "Pacific/Kiritimati", "2026-06-01T00:00:00Z", ["2026-12-31T10:00:00Z"]],
    ]);
  });

  describe("day-of-month and day-of-week syntax", () => {
    runCases([
      ["0 0 15W * *", "UTC", "2026-08-01T00:00:00Z", ["2026-08-14T00:00:00Z", "2026-09-15T00:00:00Z"]],
      ["0 0 1W * *", "UTC", "2026-07-15T00:00:00Z", ["2026-08-03T00:00:00Z", "2026-09-01T00:00:00Z"]],
      // 31W: Sunday 31 May -> Friday 29; June has no 31st and is skipped.
      ["0 0 31W * *", "UTC", "2026-05-01T00:00:00Z", ["2026-05-29T00:00:00Z", "2026-07-31T00:00:00Z"]],
      [
        "0 0 LW * *",
        "UTC",
        "2026-01-31T00:00:00Z",
        ["2026-02-27T00:00:00Z", "2026-03-31T00:00:00Z", "2026-04-30T00:00:00Z", "2026-05-29T00:00:00Z"],
      ],
      ["0 0 L * *", "UTC", "2028-01-31T00:00:00Z", ["2028-02-29T00:00:00Z", "2028-03-31T00:00:00Z"]],
      [
        "0 0 L-3 2 *",
        "UTC",
        "2026-01-01T00:00:00Z",
        ["2026-02-25T00:00:00Z", "2027-02-25T00:00:00Z", "2028-02-26T00:00:00Z"],
      ],
      ["0 0 * * 5L", "UTC", "2026-01-01T00:00:00Z", ["2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z"]],
      ["0 0 * * FRIL", "UTC", "2026-01-01T00:00:00Z", ["2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z"]],
      ["0 0 * * MON#2", "UTC", "2026-01-01T00:00:00Z", ["2026-01-12T00:00:00Z", "2026-02-09T00:00:00Z"]],
      ["0 0 * 2 MON#5", "UTC", "2026-01-01T00:00:00Z", ["2044-02-29T00:00:00Z"]],
      ["0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"]],
      // L alone in day-of-week is Saturday (Quartz).
      ["0 0 * * L", "UTC", "2026-01-01T00:00:00Z", ["2026-01-03T00:00:00Z"]],
      // 0 and 7 are both Sunday.
      ["0 0 * * 7", "UTC", "2026-01-01T00:00:00Z", ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"]],
      ["0 0 * * 0", "UTC", "2026-01-01T00:00:00Z", ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"]],
      [
        "0 0 * * 5-7",
        "UTC",
        "2026-01-01T00:00:00Z",
        ["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z"],
      ],
      // A range that ends before it starts wraps around; an open day-of-week step runs to 7 (Sunday),
      // as in vixie cron: MON/2 is MON, WED, FRI, SUN.
      [
        "0 0 * * FRI-MON",
        "UTC",
        "2026-01-01T00:00:00Z",
        [
          "2026-01-02T00:00:00Z",
          "2026-01-03T00:00:00Z",
          "2026-01-04T00:00:00Z",
          "2026-01-05T00:00:00Z",
          "2026-01-09T00:00:00Z",
        ],
      ],
      [
        "0 22-2/2 * * *",
        "UTC",
        "2026-01-01T00:00:00Z",
        ["2026-01-01T02:00:00Z", "2026-01-01T22:00:00Z", "2026-01-02T00:00:00Z"],
      ],
      [
        "0 0 * * MON/2",
        "UTC",
        "2026-01-01T00:00:00Z",
        ["2026-01-02T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-07T00:00:00Z"],
      ],
      // Names are case-insensitive.
      ["0 0 1 jan,Jul *", "UTC", "2026-01-01T00:00:00Z", ["2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"]],
      ["0 0 ? * fri", "UTC", "2026-01-01T00:00:00Z", ["2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z"]],
    ]);
  });

  describe("the vixie day rule", () => {
    runCases([
      // Both restricted: either matches (Fridays, and the 13th).
      [
        "0 0 13 * FRI",
        "UTC",
        "2026-02-01T00:00:00Z",
        ["2026-02-06T00:00:00Z", "2026-02-13T00:00:00Z", "2026-02-20T00:00:00Z"],
      ],
      // A day-of-month starting with * is unrestricted: both must match (1, 14, 27 that is a Friday).
      ["0 0 */13 * FRI", "UTC", "2026-01-01T00:00:00Z", ["2026-02-27T00:00:00Z", "2026-03-27T00:00:00Z"]],
      ["0 0 13 * ?", "UTC", "2026-01-01T00:00:00Z", ["2026-01-13T00:00:00Z", "2026-02-13T00:00:00Z"]],
      ["0 0 13 * *", "UTC", "2026-01-01T00:00:00Z", ["2026-01-13T00:00:00Z"]],
    ]);
  });

  describe("nicknames and seconds", () => {
    runCases([
      ["@yearly", "UTC", "2026-01-02T03:04:05Z", ["2027-01-01T00:00:00Z"]],
      ["@annually", "UTC", "2026-01-02T03:04:05Z", ["2027-01-01T00:00:00Z"]],
      ["@monthly", "UTC", "2026-01-02T03:04:05Z", ["2026-02-01T00:00:00Z"]],
      ["@weekly", "UTC", "2026-01-02T03:04:05Z", ["2026-01-04T00:00:00Z"]],
      ["@daily", "America/New_York", "2026-01-02T03:04:05Z", ["2026-01-02T05:00:00Z"]],
      ["@midnight", "UTC", "2026-01-02T03:04:05Z", ["2026-01-03T00:00:00Z"]],
      ["@HOURLY", "UTC", "2026-01-02T03:04:05Z", ["2026-01-02T04:00:00Z"]],
      ["*/15 * * * * *", "UTC", "2026-01-01T00:00:07Z", ["2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z"]],
      ["30 59 23 31 12 *", "UTC", "2026-06-01T00:00:00Z", ["2026-12-31T23:59:30Z"]],
      // "Strictly after": an instant that matches is not returned for itself.
      ["0 * * * *", "UTC", "2026-01-01T05:00:00Z", ["2026-01-01T06:00:00Z"]],
      ["0 * * * *", "UTC", "2026-01-01T04:59:59.999Z", ["2026-01-01T05:00:00Z"]],
    ]);
  });
});

describe("cronExpressionIssues", () => {
  it.each([["0 9 * * MON-FRI"], ["0 0 29 2 *"], ["0 0 * 2 MON#5"], ["0 15 10 L-2 * ?"], ["@daily"]])(
    "accepts %s",
    (expr) => {
      expect(cronExpressionIssues(expr, "Europe/Berlin")).toEqual([]);
    },
  );

  it.each([
    ["0 0 30 2 *", "expression can never fire (e.g. 30 February)"],
    ["0 0 31 4,6 *", "expression can never fire (e.g. 30 February)"],
    ["61 * * * *", "field minute: 61 is out of range 0-59"],
    ["0 24 * * *", "field hour: 24 is out of range 0-23"],
    ["0 0 1 FOO *", 'field month: unknown month name "FOO"'],
    ["0 0 * * FOO", 'field day-of-week: unknown day name "FOO"'],
    ["* * *", "expected 5 fields"],
    ["0 0 0 1 1 * 2026", "a year field is not supported"],
    ["@every", 'unknown nickname "@every"'],
    ["0 0 L-31 * *", "L-31 is out of range"],
    ["0 0 * * MON#6", "#6 is out of range"],
    ["*/0 * * * *", 'step "0" must be a whole number of at least 1'],
    ["0 ? * * *", '"?" is only allowed in day-of-month and day-of-week'],
    ["0 0 1,,2 * *", "empty item"],
    ["1-2-3 * * * *", 'cannot read "1-2-3"'],
    ["0 0 32W * *", "field day-of-month: 32 is out of range 1-31"],
    ["CRON_TZ=Europe/Paris 0 9 * * *", 'put "Europe/Paris" in schedule.timezone'],
    ["TZ=UTC 0 9 * * *", 'put "UTC" in schedule.timezone'],
  ])("rejects %s with a message a user can act on", (expr, message) => {
    const issues = cronExpressionIssues(expr, "UTC");
    expect(issues.join("\n")).toContain(message);
  });

  it("lists every bad field at once", () => {
    expect(cronExpressionIssues("61 25 * * *", "UTC")).toEqual([
      "field minute: 61 is out of range 0-59",
      "field hour: 25 is out of range 0-23",
    ]);
  });

  it("surfaces issues through the schedule schema on the expr path", () => {
    const parsed = scheduleSchema.safeParse({ type: "cron", expr: "0 0 30 2 *", timezone: "UTC" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["expr"]);
  });
});

describe("isWildcardHourCron", () => {
  it.each([
    ["* * * * *", true],
    ["0 */2 * * *", true],
    ["@hourly", true],
    ["0 0-23 * * *", false],
    ["0 9 * * *", false],
    ["@daily", false],
    ["not cron", false],
  ])("%s -> %s", (expr, expected) => {
    expect(isWildcardHourCron(expr)).toBe(expected);
  });
});

describe("zoneOffsets (cached per day, transitions found by bisection)", () => {
  it.each([
    "America/New_York",
    "Australia/Lord_Howe",
    "America/Santiago",
    "Antarctica/Troll",
    "Pacific/Apia",
  ])("agrees with luxon in %s", (timezone) => {
    const iana = IANAZone.create(timezone);
    const cached = zoneOffsets(timezone);
    const startMs = Date.parse(timezone === "Pacific/Apia" ? "2011-01-01T00:00:00Z" : "2026-01-01T00:00:00Z");
    const mismatches: string[] = [];
    // A step of 97 minutes (plus a second) lands on every minute-of-day phase over the year.
    for (let atMs = startMs; atMs < startMs + 366 * 86_400_000; atMs += 97 * 60_000 + 1_000) {
      if (cached.offsetMs(atMs) !== iana.offset(atMs) * 60_000) mismatches.push(new Date(atMs).toISOString());
    }
    expect(mismatches).toEqual([]);
  });

  it("switches offset exactly at the transition instant", () => {
    const newYork = zoneOffsets("America/New_York");
    const springMs = Date.parse("2026-03-08T07:00:00Z");
    expect(newYork.offsetMs(springMs - 1)).toBe(-5 * 3_600_000);
    expect(newYork.offsetMs(springMs)).toBe(-4 * 3_600_000);
  });
});

describe("nextFireTimes for interval schedules", () => {
  const at = (iso: string) => Date.parse(iso);

  it("fires at anchor + k * every strictly after afterMs", () => {
    const schedule = { type: "interval" as const, every: "15m", anchor: "2026-01-01T00:00:00Z" };
    expect(nextFireTimes(schedule, at("2026-01-01T00:20:00Z"), 3)).toEqual([
      at("2026-01-01T00:30:00Z"),
      at("2026-01-01T00:45:00Z"),
      at("2026-01-01T01:00:00Z"),
    ]);
    expect(nextFireTimes(schedule, at("2026-01-01T00:30:00Z"), 1)).toEqual([at("2026-01-01T00:45:00Z")]);
  });

  it("fires at the anchor itself when it is in the future", () => {
    const schedule = { type: "interval" as const, every: 90_000, anchor: "2026-01-01T00:00:00.500Z" };
    expect(nextFireTimes(schedule, at("2025-12-31T23:00:00Z"), 2)).toEqual([
      at("2026-01-01T00:00:00.500Z"),
      at("2026-01-01T00:01:30.500Z"),
    ]);
  });

  it("runs on elapsed time across a DST change", () => {
    const schedule = { type: "interval" as const, every: "1h", anchor: "2026-03-08T05:00:00Z" };
    expect(nextFireTimes(schedule, at("2026-03-08T06:00:00Z"), 2)).toEqual([
      at("2026-03-08T07:00:00Z"),
      at("2026-03-08T08:00:00Z"),
    ]);
  });

  it("anchors at afterMs when no anchor is given", () => {
    expect(nextFireTimes({ type: "interval", every: "2h" }, at("2026-01-01T00:00:07Z"), 2)).toEqual([
      at("2026-01-01T02:00:07Z"),
      at("2026-01-01T04:00:07Z"),
    ]);
  });
});

describe("nextFireTimes for one-shot schedules", () => {
  const at = (iso: string) => Date.parse(iso);

  it("fires once at `at` when it is after afterMs, never again", () => {
    const schedule = { type: "once" as const, at: "2026-12-01T00:00:00Z" };
    expect(nextFireTimes(schedule, at("2026-11-30T00:00:00Z"), 5)).toEqual([at("2026-12-01T00:00:00Z")]);
    expect(nextFireTimes(schedule, at("2026-12-01T00:00:00Z"), 5)).toEqual([]);
  });

  it("fires `delay` after afterMs when only a delay is given", () => {
    expect(nextFireTimes({ type: "once", delay: "2h" }, at("2026-01-01T00:00:00Z"), 1)).toEqual([
      at("2026-01-01T02:00:00Z"),
    ]);
  });

  it("rejects a non-finite afterMs (a caller bug) instead of returning NaN times", () => {
    expect(() => nextFireTimes({ type: "once", delay: "2h" }, Number.NaN, 1)).toThrow(RangeError);
  });

  it("returns nothing for a count of 0", () => {
    expect(nextFireTimes({ type: "cron", expr: "* * * * *", timezone: "UTC" }, 0, 0)).toEqual([]);
  });
});
