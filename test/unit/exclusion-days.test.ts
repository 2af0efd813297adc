// An excluded date is the whole local day, from the first instant of that date to the first
// instant of the next, also when the day starts with a repeated hour (America/Havana and
// Atlantic/Azores turn 01:00 back to 00:00). Checked minute by minute against the local date
// Intl gives for each instant, independently of the code under test.
import { describe, expect, it } from "vitest";
import { compileExclusions, isExcluded } from "../../src/core/schedules/exclusions";

function localDate(instantMs: number, timezone: string): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(instantMs);
}

const CASES: [string, string][] = [
  ["America/Havana", "2027-11-07"], // 01:00 CDT -> 00:00 CST
  ["America/Havana", "2027-11-06"],
  ["America/Havana", "2027-03-14"], // 00:00 CST -> 01:00 CDT: the day starts at 01:00
  ["Atlantic/Azores", "2026-10-25"], // 01:00 -> 00:00
  ["Atlantic/Azores", "2026-03-29"],
  ["Europe/Berlin", "2026-10-25"],
  ["America/New_York", "2026-11-01"],
];

describe("an excluded date is its whole local day", () => {
  it.each(CASES)("%s %s, every minute from two days before to two days after", (timezone, date) => {
    const exclusions = compileExclusions([{ timezone, rules: [{ type: "date", date }] }]);
    const fromMs = Date.parse(`${date}T12:00:00Z`) - 2 * 86_400_000;
    const minutes = 4 * 24 * 60 + 1;
    const wrong: string[] = [];
    // A compiled set remembers the day of the last instant it examined and answers from it: a
    // scrambled order (a stride coprime with the count) computes each day from every part of it.
    for (let i = 0; i < minutes; i++) {
      const atMs = fromMs + ((i * 1_297) % minutes) * 60_000;
      const expected = localDate(atMs, timezone) === date;
      if (isExcluded(atMs, exclusions) !== expected)
        wrong.push(`${new Date(atMs).toISOString()} ${expected}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it("Havana: excluding 2027-11-07 holds back 00:30 CDT that day; excluding 2027-11-06 does not", () => {
    const at0030CdtMs = Date.parse("2027-11-07T04:30:00Z");
    const day = (date: string) =>
      compileExclusions([{ timezone: "America/Havana", rules: [{ type: "date", date }] }]);
    const first = day("2027-11-07");
    isExcluded(Date.parse("2027-11-07T05:30:00Z"), first); // 00:30 CST: caches the day first
    expect(isExcluded(at0030CdtMs, first)).toBe(true);
    const before = day("2027-11-06");
    isExcluded(Date.parse("2027-11-07T03:30:00Z"), before); // 23:30 on the 6th
    expect(isExcluded(at0030CdtMs, before)).toBe(false);
  });
});
