import { durationMs } from "../common/duration";
import { cronSpecOf } from "../cron/cache";
import { cronFireTimes } from "../cron/next";
import type { IntervalSchedule, OnceSchedule, Schedule } from "./schedule-spec";

/**
 * The next `count` fire instants (epoch ms, ascending) strictly after `afterMs`. Fewer when the
 * schedule ends (a one-shot), can never fire again, or a cron's bounded search runs out (create
 * and preview refuse such schedules: see schedule-check.ts).
 *
 * - cron: wall-clock time in the schedule's IANA zone, with the DST rules of the README's time semantics.
 * - interval: elapsed time, `anchor + k * every` for k >= 0 (a future anchor is the first
 *   fire); without an anchor, anchored at `afterMs` (the first fire is `afterMs + every`).
 * - once: `at` (or `afterMs + delay` when only a delay is given) if it is after `afterMs`.
 *
 * @example nextFireTimes({ type: "cron", expr: "0 9 * * *", timezone: "Europe/Berlin" },
 *   Date.parse("2026-07-01T00:00:00Z"), 2)
 * // [Date.parse("2026-07-01T07:00:00Z"), Date.parse("2026-07-02T07:00:00Z")]
 * @example nextFireTimes({ type: "interval", every: "15m", anchor: "2026-01-01T00:00:00Z" },
 *   Date.parse("2026-01-01T00:20:00Z"), 1) // [Date.parse("2026-01-01T00:30:00Z")]
 */
export function nextFireTimes(schedule: Schedule, afterMs: number, count: number): number[] {
  if (!Number.isFinite(afterMs))
    throw new RangeError(`nextFireTimes: afterMs must be finite, got ${afterMs}`);
  if (count <= 0) return [];
  switch (schedule.type) {
    case "cron":
      return cronFireTimes(cronSpecOf(schedule.expr), schedule.timezone, schedule.dst, afterMs, count);
    case "interval":
      return intervalFireTimes(schedule, afterMs, count);
    case "once":
      return onceFireTimes(schedule, afterMs);
  }
}

function intervalFireTimes(schedule: IntervalSchedule, afterMs: number, count: number): number[] {
  const everyMs = durationMs(schedule.every);
  if (everyMs <= 0) return [];
  const anchorMs = schedule.anchor === undefined ? afterMs : Date.parse(schedule.anchor);
  // The first k >= 0 with anchor + k * every > afterMs: a future anchor is the first fire.
  const firstIndex = Math.max(0, Math.floor((afterMs - anchorMs) / everyMs) + 1);
  return Array.from({ length: count }, (_, i) => anchorMs + (firstIndex + i) * everyMs);
}

function onceFireTimes(schedule: OnceSchedule, afterMs: number): number[] {
  const atMs =
    schedule.at !== undefined
      ? Date.parse(schedule.at)
      : schedule.delay !== undefined
        ? afterMs + durationMs(schedule.delay)
        : Number.NaN;
  return atMs > afterMs ? [atMs] : [];
}
