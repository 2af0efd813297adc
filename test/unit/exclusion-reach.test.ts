// A job with nothing left to run is refused: a one-shot whose instant is excluded, and any spec
// excluded past the one five-year search bound, which holds for every spec (@yearly as for
// `0 0 1 * *`), checked against instants counted independently.
import { describe, expect, it } from "vitest";
import { previewRuns } from "../../src/core/jobs/preview";
import { exclusionIssues } from "../../src/core/jobs/schedule-set-check";
import { compileExclusions, WEEKDAYS } from "../../src/core/schedules/exclusions";
import { EXCLUSION_SEARCH_HORIZON_MS, includedFireTimes } from "../../src/core/schedules/schedule-set";

const NOW_MS = Date.parse("2026-12-01T00:00:00Z");
const known = new Map();

describe("nothing left to run", () => {
  it("refuses a one-shot whose instant is excluded", () => {
    const issues = exclusionIssues(
      { exclude: { timezone: "UTC", rules: [{ type: "date", date: "2027-01-01" }] }, calendars: [] },
      [{ type: "once", at: "2027-01-01T09:00:00Z" }],
      NOW_MS,
      { calendars: known },
      true,
    );
    expect(issues).toEqual([{ path: "exclude", message: expect.stringMatching(/the job would never run/) }]);
  });

  it.each(["@yearly", "0 0 1 1 *", "0 0 1 * *"])("stops %s at the same bound, whatever the spec", (expr) => {
    // Every year 2027-2033 excluded: the first included instant (2034-01-01) is past the bound.
    const exclude = {
      timezone: "UTC",
      rules: [{ type: "range" as const, from: "2027-01-01", to: "2033-12-31" }],
    };
    const search = includedFireTimes(
      [{ type: "cron", expr, timezone: "UTC" }],
      compileExclusions([exclude]),
      NOW_MS,
      5,
    );
    const boundMs = NOW_MS + EXCLUSION_SEARCH_HORIZON_MS;
    expect(search.fireTimesMs.filter((atMs) => atMs > boundMs)).toEqual([]);
    expect(search.exhausted).toBe(true);
    expect(
      exclusionIssues(
        { exclude, calendars: [] },
        [{ type: "cron", expr, timezone: "UTC" }],
        NOW_MS,
        { calendars: known },
        true,
      ),
    ).toEqual([{ path: "exclude", message: expect.stringMatching(/within 5 years/) }]);
  });
});

describe("the preview names the exclusion fields given, as a create does", () => {
  const daily = { type: "cron" as const, expr: "0 9 * * *", timezone: "UTC" };
  const everyDay = { timezone: "UTC", rules: [{ type: "weekly" as const, days: [...WEEKDAYS] }] };
  const calendars = new Map([["every-day", everyDay]]);

  it.each([
    [["exclude"], ["exclude"]],
    [["calendars"], ["calendars"]],
    [
      ["calendars", "exclude"],
      ["calendars", "exclude"],
    ],
  ] as const)("given %j, names %j", (given, named) => {
    const fields = {
      calendars: given.includes("calendars" as never) ? ["every-day"] : [],
      exclude: given.includes("exclude" as never) ? everyDay : null,
    };
    const preview = previewRuns(
      { schedule: daily, ...fields, window: null, flexible_window: null, count: 5 },
      calendars,
      NOW_MS,
    );
    expect(preview.ok).toBe(false);
    expect(!preview.ok && preview.issues.map((issue) => issue.path)).toEqual(named);
    const create = exclusionIssues(fields, [daily], NOW_MS, { calendars }, true);
    expect(!preview.ok && preview.issues).toEqual(create);
  });
});
