import { compileExclusions, type ExclusionSet } from "./exclusions";
import type { JobSpec, Schedule } from "./job-spec";
import { placeFire, windowOf } from "./job-timeline";
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

/** A preview's instants placed by a delivery window and a flexible window (see placeFire). */
export interface PlacedPreview {
  fires: { scheduledAtMs: number; fireAtMs: number }[];
  skipped: { scheduledAtMs: number; reason: string }[];
}

/**
 * The next `count` runs of the included instants `fireTimesAfter(afterMs, n)` gives, each placed
 * as the job `jobId` with this `window` and `flexible_window` would place it, with the instants
 * the window skips met on the way (at most `maxExamined` instants examined).
 *
 * @example placedPreview(spec, "job_1", (after, n) => nextFireTimes(daily7am, after, n), t, 3, 1_000)
 * // { fires: [{ scheduledAtMs: 07:00, fireAtMs: 08:00 (the opening) }, ...], skipped: [] }
 */
export function placedPreview(
  spec: Pick<JobSpec, "window" | "flexible_window" | "schedule" | "schedules">,
  jobId: string,
  fireTimesAfter: (afterMs: number, count: number) => number[],
  fromMs: number,
  count: number,
  maxExamined: number,
): PlacedPreview {
  const window = windowOf(spec);
  const placed: PlacedPreview = { fires: [], skipped: [] };
  let instants = fireTimesAfter(fromMs, count + 1);
  let examined = 0;
  while (placed.fires.length < count && instants.length > 0 && examined < maxExamined) {
    const [scheduledAtMs = 0, ...rest] = instants;
    examined += 1;
    if (rest.length === 0) rest.push(...fireTimesAfter(scheduledAtMs, count + 1));
    const fire = placeFire(
      { jitter: null, flexible_window: spec.flexible_window },
      jobId,
      window,
      scheduledAtMs,
      rest[0] ?? null,
    );
    if (fire.skipReason !== undefined) placed.skipped.push({ scheduledAtMs, reason: fire.skipReason });
    else placed.fires.push({ scheduledAtMs, fireAtMs: fire.fireAtMs });
    instants = rest;
  }
  return placed;
}
