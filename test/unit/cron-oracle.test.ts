// Differential test: on the subset of cron where every scheduler agrees (UTC, so no DST; never
// both day-of-month and day-of-week restricted, where vixie and cron-parser differ), our engine
// must produce exactly what cron-parser produces. A seeded generator keeps it reproducible.
import { CronExpressionParser } from "cron-parser";
import { describe, expect, it } from "vitest";
import { nextFireTimes } from "../../src/core/schedules/schedule";

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function field(random: () => number, min: number, max: number): string {
  const pick = () => min + Math.floor(random() * (max - min + 1));
  switch (Math.floor(random() * 6)) {
    case 0:
      return "*";
    case 1:
      return String(pick());
    case 2: {
      const [a, b] = [pick(), pick()].sort((x, y) => x - y);
      return `${a}-${b}`;
    }
    case 3:
      return `*/${1 + Math.floor(random() * Math.min(12, max - min))}`;
    case 4:
      return [...new Set([pick(), pick(), pick()])].sort((x, y) => x - y).join(",");
    default: {
      const start = pick();
      return `${start}/${1 + Math.floor(random() * 5)}`;
    }
  }
}

function expression(random: () => number): string {
  const seconds = random() < 0.3 ? `${field(random, 0, 59)} ` : "";
  const restrictDom = random() < 0.5;
  const dom = restrictDom ? field(random, 1, 28) : "*";
  const dow = restrictDom ? "*" : field(random, 0, 6);
  return `${seconds}${field(random, 0, 59)} ${field(random, 0, 23)} ${dom} ${field(random, 1, 12)} ${dow}`;
}

describe("nextFireTimes agrees with cron-parser where their rules coincide", () => {
  const random = seeded(20_261_129);
  const cases = Array.from({ length: 300 }, () => ({
    expr: expression(random),
    fromMs: Date.UTC(2024, 0, 1) + Math.floor(random() * 4 * 365 * 86_400_000),
  }));

  it.each(cases)("$expr", ({ expr, fromMs }) => {
    const parsed = CronExpressionParser.parse(expr, { currentDate: new Date(fromMs), tz: "UTC" });
    const expected = Array.from({ length: 5 }, () => parsed.next().getTime());
    const ours = nextFireTimes({ type: "cron", expr, timezone: "UTC" }, fromMs, 5);
    expect(ours.map((ms) => new Date(ms).toISOString())).toEqual(
      expected.map((ms) => new Date(ms).toISOString()),
    );
  });
});
