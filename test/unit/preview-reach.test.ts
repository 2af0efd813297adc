// A preview (and next_fire_times) lists `count` instants whenever the schedule has them: the
// five-year bound applies only to the search for the next instant behind exclusions or a window,
// and where it stops the list short, the answer says so. Checked against instants an oracle
// counts on its own (luxon, day by day), not against the engine.
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import { normalizeJobSpec } from "../../src/core/jobs/normalize";
import { type PreviewInput, previewRuns } from "../../src/core/jobs/preview";
import { searchRunFires } from "../../src/core/jobs/run-search";
import { compileExclusions, NO_EXCLUSIONS } from "../../src/core/schedules/exclusions";
import { SEARCH_HORIZON_MS } from "../../src/core/schedules/search-bound";

const iso = (ms: number) => new Date(ms).toISOString();
const noCalendars = new Map();

function preview(fields: Partial<PreviewInput> & { count: number; from: string }) {
  const result = previewRuns(
    { calendars: [], exclude: null, window: null, flexible_window: null, ...fields },
    noCalendars,
    Date.parse("2026-12-01T00:00:00Z"),
  );
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.preview;
}

/** Local midnight of 1 January of each year after `from`'s, in `zone`: @yearly by hand. */
function oracleYearly(zone: string, from: string, count: number): string[] {
  const firstYear = DateTime.fromISO(from, { zone }).year + 1;
  return Array.from({ length: count }, (_, index) =>
    iso(DateTime.fromObject({ year: firstYear + index, month: 1, day: 1 }, { zone }).toMillis()),
  );
}

/** 01:00 on the first Sunday of March of each year from `from`'s on (if still ahead), in `zone`. */
function oracleFirstSundayOfMarch(zone: string, from: string, count: number): string[] {
  const fromMs = Date.parse(from);
  const found: string[] = [];
  for (let year = DateTime.fromISO(from, { zone }).year; found.length < count; year++) {
    let day = DateTime.fromObject({ year, month: 3, day: 1, hour: 1 }, { zone });
    while (day.weekday !== 7) day = day.plus({ days: 1 });
    if (day.toMillis() > fromMs) found.push(iso(day.toMillis()));
  }
  return found;
}

describe("a preview lists `count` instants whenever the schedule has them", () => {
  it("@yearly in Australia/Lord_Howe, count 6: six New Year midnights", () => {
    const from = "2026-12-01T00:00:00Z";
    const schedule = { type: "cron" as const, expr: "@yearly", timezone: "Australia/Lord_Howe" };
    const answer = preview({ schedule, count: 6, from });
    expect(answer.fireTimesMs.map(iso)).toEqual(oracleYearly("Australia/Lord_Howe", from, 6));
    expect(answer.stop).toBeNull();
  });

  it("0 1 * MAR SUN#1 in Europe/London, count 9: nine first Sundays of March", () => {
    const from = "2026-12-01T00:00:00Z";
    const schedule = { type: "cron" as const, expr: "0 1 * MAR SUN#1", timezone: "Europe/London" };
    const answer = preview({ schedule, count: 9, from });
    expect(answer.fireTimesMs.map(iso)).toEqual(oracleFirstSundayOfMarch("Europe/London", from, 9));
    expect(answer.stop).toBeNull();
  });
});

describe("behind exclusions, the bound is per next instant and is said", () => {
  const yearly = { type: "cron" as const, expr: "@yearly", timezone: "UTC" };
  const from = "2026-12-01T00:00:00Z";

  it("continues past an excluded stretch shorter than five years", () => {
    const exclude = {
      timezone: "UTC",
      rules: [{ type: "range" as const, from: "2028-01-01", to: "2030-12-31" }],
    };
    const answer = preview({ schedule: yearly, exclude, count: 3, from });
    expect(answer.fireTimesMs.map(iso)).toEqual([
      "2027-01-01T00:00:00.000Z",
      "2031-01-01T00:00:00.000Z",
      "2032-01-01T00:00:00.000Z",
    ]);
    expect(answer.stop).toBeNull();
  });

  it("stops five years past the last instant found, and says where", () => {
    const exclude = {
      timezone: "UTC",
      rules: [{ type: "range" as const, from: "2028-01-01", to: "2035-12-31" }],
    };
    const answer = preview({ schedule: yearly, exclude, count: 3, from });
    expect(answer.fireTimesMs.map(iso)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(answer.stop).toEqual({
      reason: "horizon",
      searchedThroughMs: Date.parse("2027-01-01T00:00:00Z") + SEARCH_HORIZON_MS,
    });
  });
});

describe("a delivery window that leaves nothing to run is refused like a cron that never fires", () => {
  const nowMs = Date.parse("2026-12-01T10:00:00Z");
  const job = (fields: Record<string, unknown>) =>
    jobCreateSchema.parse({ name: "w", target: { url: "https://example.com/" }, ...fields });
  const daily12 = { type: "cron", expr: "0 12 * * *", timezone: "UTC" };

  it("refuses a daily 12:00 job whose window opens 08:00-09:00 and skips the rest", () => {
    const result = normalizeJobSpec(
      job({ schedule: daily12, window: { between: ["08:00", "09:00"], outside: "skip" } }),
      nowMs,
    );
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "window", message: expect.stringMatching(/skips every instant .* would never run/) }],
    });
  });

  it("refuses a one-shot outside a skipping window, and accepts it deferred", () => {
    const once = { type: "once", at: "2026-12-02T12:00:00Z" };
    const skip = normalizeJobSpec(
      job({ schedule: once, window: { between: ["08:00", "09:00"], outside: "skip" } }),
      nowMs,
    );
    expect(skip.ok ? [] : skip.issues.map((issue) => issue.path)).toEqual(["window"]);
    const defer = normalizeJobSpec(job({ schedule: once, window: { between: ["08:00", "09:00"] } }), nowMs);
    expect(defer.ok).toBe(true);
  });

  it.each([
    ["skip", "* * * * * *", ["08:00:00", "08:00:01"], ["08:00:00", "08:00:01"]],
    // The last instant of the closed period (07:59:30) runs at the opening.
    ["defer", "30 * * * * *", ["07:59:30", "08:00:30"], ["08:00:00", "08:00:30"]],
  ] as const)(
    "accepts a frequent job behind a long closed period (%s), and finds its next runs at once",
    (outside, expr, instants, fireAt) => {
      const spec = job({
        schedule: { type: "cron", expr, timezone: "UTC" },
        window: { between: ["08:00", "09:00"], outside },
      });
      expect(normalizeJobSpec(spec, nowMs).ok).toBe(true);
      const search = searchRunFires(spec, "job_1", nowMs, 2, NO_EXCLUSIONS);
      expect(search.fires.map((fire) => iso(fire.scheduledAtMs))).toEqual(
        instants.map((at) => `2026-12-02T${at}.000Z`),
      );
      expect(search.fires.map((fire) => iso(fire.fireAtMs))).toEqual(
        fireAt.map((at) => `2026-12-02T${at}.000Z`),
      );
      expect(search.stop).toBeNull();
      // Up to 24 of each closed period are listed, then the search jumps to its end.
      expect(search.windowSkips.length).toBeLessThanOrEqual(24 * 2);
    },
  );

  it("names the window, not the exclusions, when the exclusions alone leave instants", () => {
    const weekendsOff = compileExclusions([
      { timezone: "UTC", rules: [{ type: "weekly", days: ["sat", "sun"] }] },
    ]);
    const spec = job({
      schedule: daily12,
      window: { days: ["SAT-SUN"], between: ["11:00", "13:00"], outside: "skip" },
    });
    expect(searchRunFires(spec, "job_1", nowMs, 1, weekendsOff).fires).toEqual([]);
    const result = normalizeJobSpec(spec, nowMs, {
      calendars: new Map([
        ["weekends", { timezone: "UTC", rules: [{ type: "weekly", days: ["sat", "sun"] }] }],
      ]),
    });
    expect(result.ok).toBe(true); // no calendar named: the window alone lets weekends run
    const named = normalizeJobSpec({ ...spec, calendars: ["weekends"] }, nowMs, {
      calendars: new Map([
        ["weekends", { timezone: "UTC", rules: [{ type: "weekly", days: ["sat", "sun"] }] }],
      ]),
    });
    expect(named.ok ? [] : named.issues.map((issue) => issue.path)).toEqual(["window"]);
  });
});
