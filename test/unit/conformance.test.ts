import { IANAZone } from "luxon";
import { describe, expect, it } from "vitest";
import { cronScheduleSchema, type DstPolicy } from "../../src/core/jobs/job-spec";
import { previewInputSchema, previewRuns } from "../../src/core/jobs/preview";
import { nextFireTimes } from "../../src/core/schedules/schedule";
import vectors from "../fixtures/cron-vectors.json";

interface CronVector {
  id: string;
  schedule: {
    type: "cron";
    expr: string;
    timezone: string;
    dst?: { gap: "shift" | "skip"; overlap: "first" | "last" | "both" };
  };
  from: string;
  expected: string[];
  classification: string;
}

const all = vectors as CronVector[];
const runnable = all.filter((vector) => vector.classification !== "excluded");

describe("public cron conformance vectors (test/fixtures/cron-vectors.json)", () => {
  it("holds the 102 vectors of which 99 run", () => {
    expect(all).toHaveLength(102);
    expect(runnable).toHaveLength(99);
  });

  describe.each(runnable)("$id: $schedule.expr in $schedule.timezone from $from", (vector) => {
    it("is accepted by the schedule schema", () => {
      const parsed = cronScheduleSchema.safeParse(vector.schedule);
      expect(parsed.error?.issues ?? []).toEqual([]);
    });

    it("fires at exactly the expected instants", () => {
      const fireTimes = nextFireTimes(vector.schedule, Date.parse(vector.from), vector.expected.length);
      expect(fireTimes.map((atMs) => new Date(atMs).toISOString())).toEqual(vector.expected);
    });

    it("lists them all through the preview, as the public runner asks (count = expected.length)", () => {
      const preview = previewRuns(
        previewInputSchema.parse({
          schedule: vector.schedule,
          from: vector.from,
          count: vector.expected.length,
        }),
        new Map(),
        Date.parse("2026-12-01T00:00:00Z"),
      );
      expect(preview.ok && preview.preview.fireTimesMs.map((atMs) => new Date(atMs).toISOString())).toEqual(
        vector.expected,
      );
      expect(preview.ok && preview.preview.stop).toBeNull();
    });
  });

  it("rejects the excluded never-firing expressions (30 February, 31 April) at validation", () => {
    for (const id of ["v121", "v122"]) {
      const vector = all.find((candidate) => candidate.id === id);
      const parsed = cronScheduleSchema.safeParse(vector?.schedule);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("expression can never fire");
    }
  });
});

/**
 * An independent oracle for the DST rules: walk instants minute by minute, read each one's wall
 * time with luxon, and derive gaps (wall minutes skipped) and overlaps (wall minutes seen twice)
 * from the walk itself, then apply the DST rules (docs/TIME.md). Only plain `m h * * *` expressions, so the
 * oracle's matcher is trivial.
 */
describe("DST rules against a minute-by-minute oracle around every 2026 transition", () => {
  const zones = [
    "America/New_York",
    "Europe/London",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "America/Santiago",
    "Antarctica/Troll",
  ];
  const expressions = ["*/15 * * * *", "0,30 1-3 * * *", "15,45 0,2,23 * * *", "5 */2 * * *"];
  const policies: (DstPolicy | undefined)[] = [
    undefined,
    { gap: "skip", overlap: "last" },
    { gap: "shift", overlap: "both" },
  ];

  for (const timezone of zones) {
    for (const transitionMs of transitionsIn(timezone, 2026)) {
      it(`${timezone} around ${new Date(transitionMs).toISOString()}`, () => {
        const fromMs = transitionMs - 14 * HOUR_MS;
        const toMs = transitionMs + 14 * HOUR_MS;
        const walk = walkMinutes(timezone, fromMs - 2 * HOUR_MS, toMs + 2 * HOUR_MS);
        for (const expr of expressions) {
          for (const dst of policies) {
            const expected = oracleFireTimes(expr, walk, dst, fromMs, toMs);
            const schedule = { type: "cron" as const, expr, timezone, ...(dst ? { dst } : {}) };
            const actual = nextFireTimes(schedule, fromMs, expected.length);
            expect({ expr, dst, fire: actual.map(iso) }).toEqual({ expr, dst, fire: expected.map(iso) });
          }
        }
      });
    }
  }
});

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const iso = (atMs: number) => new Date(atMs).toISOString();

function offsetMs(timezone: string, atMs: number): number {
  return IANAZone.create(timezone).offset(atMs) * MINUTE_MS;
}

/** Transition instants of a year, by monthly sampling then bisection to the minute. */
function transitionsIn(timezone: string, year: number): number[] {
  const found: number[] = [];
  for (let month = 0; month < 12; month++) {
    let lowMs = Date.UTC(year, month, 1);
    let highMs = Date.UTC(year, month + 1, 1);
    if (offsetMs(timezone, lowMs) === offsetMs(timezone, highMs)) continue;
    while (highMs - lowMs > MINUTE_MS) {
      const midMs = lowMs + Math.floor((highMs - lowMs) / 2 / MINUTE_MS) * MINUTE_MS;
      if (offsetMs(timezone, midMs) === offsetMs(timezone, lowMs)) lowMs = midMs;
      else highMs = midMs;
    }
    found.push(highMs);
  }
  return found;
}

function expandField(text: string, max: number): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const [range = "", stepText] = item.split("/");
    const [start, end] = range === "*" ? [0, max] : range.split("-").map(Number);
    for (let value = start ?? 0; value <= (end ?? start ?? 0); value += Number(stepText ?? 1))
      values.add(value);
  }
  return values;
}

interface WalkStep {
  atMs: number;
  wallMs: number;
  offsetMs: number;
}

/** Every minute of [startMs, endMs] with its wall time in the zone. */
function walkMinutes(timezone: string, startMs: number, endMs: number): WalkStep[] {
  const steps: WalkStep[] = [];
  for (let atMs = startMs; atMs <= endMs; atMs += MINUTE_MS) {
    const offset = offsetMs(timezone, atMs);
    steps.push({ atMs, wallMs: atMs + offset, offsetMs: offset });
  }
  return steps;
}

function oracleFireTimes(
  expr: string,
  walk: WalkStep[],
  dst: DstPolicy | undefined,
  fromMs: number,
  toMs: number,
) {
  const [minuteText = "", hourText = ""] = expr.split(" ");
  const minutes = expandField(minuteText, 59);
  const hours = expandField(hourText, 23);
  const matches = (wallMs: number) =>
    minutes.has(new Date(wallMs).getUTCMinutes()) && hours.has(new Date(wallMs).getUTCHours());
  const elapsed = hourText.startsWith("*");
  const policy = { gap: "shift", overlap: "first", ...dst };
  const occurrences = new Map<number, number[]>();
  const fires = new Set<number>();
  let previous: WalkStep | undefined;
  for (const step of walk) {
    if (matches(step.wallMs))
      occurrences.set(step.wallMs, [...(occurrences.get(step.wallMs) ?? []), step.atMs]);
    // Wall minutes jumped over are a gap: shifted by the gap length = read with the old offset.
    for (let gapMs = (previous?.wallMs ?? step.wallMs) + MINUTE_MS; gapMs < step.wallMs; gapMs += MINUTE_MS) {
      if (matches(gapMs) && !elapsed && policy.gap === "shift") fires.add(gapMs - (previous?.offsetMs ?? 0));
    }
    previous = step;
  }
  for (const passes of occurrences.values()) {
    const firstMs = passes[0] ?? 0;
    const lastMs = passes[passes.length - 1] ?? 0;
    if (passes.length === 1 || elapsed || policy.overlap === "both")
      for (const atMs of passes) fires.add(atMs);
    else fires.add(policy.overlap === "first" ? firstMs : lastMs);
  }
  return [...fires].filter((atMs) => atMs > fromMs && atMs <= toMs).sort((a, b) => a - b);
}
