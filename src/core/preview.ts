import { compileExclusions, type ExclusionSet } from "./exclusions";
import type { Schedule } from "./job-spec";
import { normalizeSchedule } from "./normalize";
import { type CheckedFireTimes, checkedFireTimes, type SpecIssue } from "./schedule-check";
import { includedFireTimes } from "./schedule-set";

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

export type CheckedPreview =
  | { ok: true; fireTimesMs: number[]; excludedMs: number[] }
  | { ok: false; issues: SpecIssue[] };

/**
 * A preview of several specs and exclusions: each spec checked as `previewFireTimes` checks one
 * (issues at `schedules.<i>`, or `schedule` when `path` says so), then the next `count` instants
 * of their union that are not excluded, with the excluded ones met on the way (bounded by
 * EXCLUSION_SEARCH_LIMIT: `exclude`/`calendars` are refused when nothing is left to run).
 *
 * @example previewUnionFireTimes([dailyAt9London], [ukHolidays], t, t, 5, "schedules")
 * // { ok: true, fireTimesMs: [five days at 09:00 but Christmas], excludedMs: [Christmas 09:00] }
 */
export function previewUnionFireTimes(
  schedules: readonly Schedule[],
  exclusions: readonly ExclusionSet[],
  nowMs: number,
  fromMs: number,
  count: number,
  path: "schedule" | "schedules",
  /** The request fields the exclusions came from: the ones a refusal names. */
  exclusionFields: readonly ("calendars" | "exclude")[] = ["calendars"],
): CheckedPreview {
  const normalized = schedules.map((schedule) => normalizeSchedule(schedule, nowMs, fromMs));
  const issues: SpecIssue[] = [];
  normalized.forEach((schedule, index) => {
    const checked = checkedFireTimes(schedule, fromMs, 1);
    const prefix = path === "schedule" ? "schedule" : `schedules.${index}`;
    if (!checked.ok)
      issues.push(...checked.issues.map((one) => ({ ...one, path: one.path.replace(/^schedule/, prefix) })));
  });
  if (issues.length > 0) return { ok: false, issues };
  const search = includedFireTimes(normalized, compileExclusions(exclusions), fromMs, count);
  if (search.exhausted && search.fireTimesMs.length === 0) {
    return {
      ok: false,
      issues: exclusionFields.map((field) => ({
        path: field,
        message: "exclude every instant examined: the schedule would never run",
      })),
    };
  }
  return { ok: true, fireTimesMs: search.fireTimesMs, excludedMs: search.excludedMs };
}
