import type { Schedule } from "./job-spec";
import { normalizeSchedule } from "./normalize";
import { type CheckedFireTimes, checkedFireTimes } from "./schedule-check";

/**
 * What `POST /v1/schedules/preview` answers: the schedule normalized as a job created at `fromMs`
 * would be (an interval without anchor is anchored there; a delay counts from `nowMs`), then its
 * next `count` fire times strictly after `fromMs`. The same rule, through the same functions, as
 * a job's `next_fire_times` and its first fire on the shard (see `firstFire`).
 *
 * @example previewFireTimes({ type: "interval", every: "15m" }, t, t, 2) // { ok: true, fireTimesMs: [t + 15 min, t + 30 min] }
 */
export function previewFireTimes(
  schedule: Schedule,
  nowMs: number,
  fromMs: number,
  count: number,
): CheckedFireTimes {
  return checkedFireTimes(normalizeSchedule(schedule, nowMs, fromMs), fromMs, count);
}
