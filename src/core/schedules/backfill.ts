import { unionFireTimes } from "./schedule-set";
import type { Schedule } from "./schedule-spec";

/** Most instants one backfill may create: more is refused before any run exists. */
export const MAX_BACKFILL_INSTANTS = 1_000;

/**
 * The instants a backfill of [fromMs, toMs] (inclusive) may run: the specs' (unioned) instants in the
 * range that are not later than `nowMs`, at most `MAX_BACKFILL_INSTANTS + 1` (so a caller can
 * tell "too many"). A backfill covers past instants only: running a future one would take its
 * idempotency key, and the real schedule would then skip that instant without a trace.
 *
 * @example backfillInstants({ type: "cron", expr: "0 * * * *", timezone: "UTC" },
 *   Date.parse("2026-01-01T00:00:00Z"), Date.parse("2026-01-01T05:00:00Z"), Date.parse("2026-01-01T02:30:00Z"))
 * // [00:00, 01:00, 02:00]: 03:00 to 05:00 are still to come
 */
export function backfillInstants(
  schedule: Schedule | readonly Schedule[],
  fromMs: number,
  toMs: number,
  nowMs: number,
): number[] {
  const lastMs = Math.min(toMs, nowMs);
  const schedules = Array.isArray(schedule) ? schedule : [schedule as Schedule];
  return unionFireTimes(schedules, fromMs - 1, MAX_BACKFILL_INSTANTS + 1).filter((atMs) => atMs <= lastMs);
}
