import type { DeliveryWindow } from "./delivery-window";
import { compileExclusions, type ExclusionSet } from "./exclusions";
import type { FlexibleWindow } from "./flexible-window";
import { misfirePolicySchema, type Schedule } from "./job-spec";
import { normalizeSchedule, normalizeTiming, type SpecIssue } from "./normalize";
import { searchRunFires } from "./run-search";
import { type CheckedFireTimes, checkedFireTimes } from "./schedule-check";
import { includedFireTimes, schedulesOf } from "./schedule-set";
import { exclusionSetsOf } from "./schedule-set-check";
import type { SearchStop } from "./search-bound";

/**
 * The fire times of one schedule normalized as a job created at `fromMs` would be (an interval
 * without anchor is anchored there; a delay counts from `nowMs`), strictly after `fromMs`.
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

/** What `POST /v1/schedules/preview` takes, validated (docs/API.md). */
export interface PreviewInput {
  schedule?: Schedule | undefined;
  schedules?: Schedule[] | undefined;
  calendars: string[];
  exclude: ExclusionSet | null;
  window: DeliveryWindow | null;
  flexible_window: FlexibleWindow | null;
  job_id?: string | undefined;
  count: number;
  from?: string | undefined;
}

/** A preview's answer, in epoch milliseconds. */
export interface PreviewRuns {
  /** Where the next `count` runs fire (the instants themselves without a window). */
  fireTimesMs: number[];
  /** Instants the exclusions left out, up to the last instant listed. */
  excludedMs: number[];
  /** With `window` or `flexible_window`: each run's instant and fire point, and the window's skips. */
  placed: {
    fires: { scheduledAtMs: number; fireAtMs: number }[];
    skipped: { scheduledAtMs: number; reason: string }[];
  } | null;
  /** Why fewer than `count` were listed although the specs may have more; null otherwise. */
  stop: SearchStop | null;
}

/**
 * The preview of a job created at `from` (default `nowMs`): checked by normalizeTiming exactly as
 * a create checks it, so it refuses what a create refuses, with the same issues; then its next
 * `count` runs strictly after `from`, by the same searches as the job's `next_fire_times`.
 * `calendars` holds the tenant's calendars (at least those the input names).
 *
 * @example previewRuns({ schedule: dailyAt9London, calendars: ["uk-holidays"], count: 5, ... }, calendars, nowMs)
 * // { ok: true, preview: { fireTimesMs: [five days at 09:00 but Christmas], excludedMs: [Christmas 09:00], placed: null, stop: null } }
 */
export function previewRuns(
  input: PreviewInput,
  calendars: ReadonlyMap<string, ExclusionSet>,
  nowMs: number,
): { ok: true; preview: PreviewRuns } | { ok: false; issues: SpecIssue[] } {
  const fromMs = input.from === undefined ? nowMs : Date.parse(input.from);
  const timing = normalizeTiming(
    {
      ...(input.schedule === undefined ? {} : { schedule: input.schedule }),
      ...(input.schedules === undefined ? {} : { schedules: input.schedules }),
      calendars: input.calendars,
      exclude: input.exclude,
      window: input.window,
      flexible_window: input.flexible_window,
      start_at: null,
      end_at: null,
      misfire: misfirePolicySchema.parse({}),
      jitter: null,
    },
    fromMs,
    { calendars, anchorMs: fromMs, delayFromMs: nowMs },
  );
  if (!timing.ok) return timing;
  const fields = timing.fields;
  const exclusions = compileExclusions(exclusionSetsOf(fields, calendars));
  const included = includedFireTimes(schedulesOf(fields), exclusions, fromMs, input.count);
  if (fields.window === null && fields.flexible_window === null) {
    const preview = { fireTimesMs: included.fireTimesMs, excludedMs: included.excludedMs, placed: null };
    return { ok: true, preview: { ...preview, stop: included.stop } };
  }
  const runs = searchRunFires(fields, input.job_id ?? "preview", fromMs, input.count, exclusions);
  const fires = runs.fires.map(({ scheduledAtMs, fireAtMs }) => ({ scheduledAtMs, fireAtMs }));
  const skipped = runs.windowSkips.map((skip) => ({
    scheduledAtMs: skip.scheduledAtMs,
    reason: skip.skipReason ?? "",
  }));
  return {
    ok: true,
    preview: {
      fireTimesMs: fires.map((fire) => fire.fireAtMs),
      excludedMs: included.excludedMs,
      placed: { fires, skipped },
      stop: runs.stop,
    },
  };
}
