import { describe, expect, it } from "vitest";
import { type TzdataSource, tzdataFingerprint, tzdataSampleInstantsMs } from "../../src/core/cron/tzdata";
import { setZoneRulePatches } from "../../src/core/cron/zone";
import { nextFireTimes } from "../../src/core/schedules/schedule";
import { offsetMinutesOfLabel } from "../../src/tzdata";

function source(offsets: Record<string, number>, runtimeVersion: string | null = null): TzdataSource {
  return { zones: Object.keys(offsets), offsetMinutes: (zone) => offsets[zone] ?? 0, runtimeVersion };
}

describe("tzdataFingerprint", () => {
  it("is the same for the same rules, whatever order the zones come in", () => {
    const a = tzdataFingerprint(source({ "Asia/Tokyo": 540, "Europe/Paris": 60 }));
    const b = tzdataFingerprint({ ...source({ "Europe/Paris": 60, "Asia/Tokyo": 540 }) });
    expect(a).toBe(b);
    expect(a).toMatch(/^intl-[0-9a-f]{12}$/);
  });

  it("changes when one zone's offset changes at one sampled instant", () => {
    const sampleMs = tzdataSampleInstantsMs()[17] as number;
    const base = source({ "Asia/Tokyo": 540, "Europe/Paris": 60 });
    const moved: TzdataSource = {
      ...base,
      offsetMinutes: (zone, atMs) =>
        zone === "Europe/Paris" && atMs === sampleMs ? 120 : base.offsetMinutes(zone, atMs),
    };
    expect(tzdataFingerprint(moved)).not.toBe(tzdataFingerprint(base));
  });

  it("changes when a zone is added, and carries a version the runtime names", () => {
    expect(tzdataFingerprint(source({ UTC: 0 }))).not.toBe(tzdataFingerprint(source({ UTC: 0, GMT: 0 })));
    expect(tzdataFingerprint(source({ UTC: 0 }, "2025c"))).toMatch(/^2025c\+intl-[0-9a-f]{12}$/);
  });

  it("samples fixed instants, four a year from 2026 to 2031, so it does not drift with time", () => {
    const instants = tzdataSampleInstantsMs();
    expect(instants).toHaveLength(24);
    expect(new Date(instants[0] as number).toISOString()).toBe("2026-01-15T12:00:00.000Z");
    expect(new Date(instants.at(-1) as number).toISOString()).toBe("2031-11-01T12:00:00.000Z");
  });
});

describe("offsetMinutesOfLabel", () => {
  it.each([
    ["1/15/2026, GMT+05:30", 330],
    ["1/15/2026, GMT-03:00", -180],
    ["1/15/2026, GMT+5", 300],
    ["1/15/2026, GMT", 0],
  ])("reads %s as %i minutes", (label, minutes) => {
    expect(offsetMinutesOfLabel(label)).toBe(minutes);
  });
});

describe("setZoneRulePatches (simulated tz database change)", () => {
  it("moves a zone's instants from the patch on, and restores them when cleared", () => {
    const schedule = { type: "cron", expr: "0 9 * * *", timezone: "Asia/Tokyo" } as const;
    const afterMs = Date.parse("2027-02-28T12:00:00Z");
    const real = nextFireTimes(schedule, afterMs, 2);
    expect(real.map((ms) => new Date(ms).toISOString())).toEqual([
      "2027-03-01T00:00:00.000Z",
      "2027-03-02T00:00:00.000Z",
    ]);
    setZoneRulePatches([
      { zone: "Asia/Tokyo", fromMs: Date.parse("2027-03-01T12:00:00Z"), shiftMinutes: 60 },
    ]);
    try {
      expect(nextFireTimes(schedule, afterMs, 2).map((ms) => new Date(ms).toISOString())).toEqual([
        "2027-03-01T00:00:00.000Z",
        "2027-03-01T23:00:00.000Z",
      ]);
    } finally {
      setZoneRulePatches([]);
    }
    expect(nextFireTimes(schedule, afterMs, 2)).toEqual(real);
  });
});
