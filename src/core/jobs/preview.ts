import { z } from "zod";
import { type DeliveryWindow, deliveryWindowSchema } from "../schedules/delivery-window";
import { compileExclusions, type ExclusionSet, exclusionSetSchema } from "../schedules/exclusions";
import { type FlexibleWindow, flexibleWindowSchema } from "../schedules/flexible-window";
import { type CheckedFireTimes, checkedFireTimes } from "../schedules/schedule-check";
import { includedFireTimes, schedulesOf } from "../schedules/schedule-set";
import type { SearchStop } from "../schedules/search-bound";
import {
  jobCalendarsSchema,
  misfirePolicySchema,
  type Schedule,
  scheduleSchema,
  schedulesSchema,
} from "./job-spec";
import { normalizeSchedule, normalizeTiming, type SpecIssue, type TimingFields } from "./normalize";
import { searchRunFires } from "./run-search";
import { exclusionSetsOf } from "./schedule-set-check";

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

export const MAX_PREVIEW_COUNT = 1000;

/**
 * What `POST /v1/schedules/preview` takes (docs/API.md): a job's timing fields, with the create's
 * own schemas. Exactly one of `schedule`/`schedules` is checked as a create checks it
 * (missingScheduleIssues, scheduleChoiceIssues), not here.
 */
export const previewInputSchema = z.strictObject({
  schedule: scheduleSchema.optional(),
  schedules: schedulesSchema.optional(),
  calendars: jobCalendarsSchema.default([]),
  exclude: exclusionSetSchema.nullable().default(null),
  count: z.number().int().min(1).max(MAX_PREVIEW_COUNT).default(5),
  from: z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" }).optional(),
  window: deliveryWindowSchema.nullable().default(null),
  flexible_window: flexibleWindowSchema.nullable().default(null),
  job_id: z.string().min(1).max(200).optional().meta({
    description: "The job whose flexible-window points to show (they depend on its id); default `preview`",
  }),
});

export type PreviewInput = z.output<typeof previewInputSchema>;

/** The preview's fields that are valid on its own, as a timing spec (see validJobFields). */
export function validPreviewFields(input: unknown): TimingFields {
  const body = (typeof input === "object" && input !== null && !Array.isArray(input) ? input : {}) as Record<
    string,
    unknown
  >;
  const valid = (key: keyof typeof previewInputSchema.shape) => {
    const result = previewInputSchema.shape[key].safeParse(Object.hasOwn(body, key) ? body[key] : undefined);
    return result.success ? result.data : undefined;
  };
  const schedule = valid("schedule") as Schedule | undefined;
  const schedules = valid("schedules") as Schedule[] | undefined;
  return {
    ...(schedule === undefined ? {} : { schedule }),
    ...(schedules === undefined ? {} : { schedules }),
    calendars: (valid("calendars") as string[] | undefined) ?? [],
    exclude: (valid("exclude") as ExclusionSet | null | undefined) ?? null,
    window: (valid("window") as DeliveryWindow | null | undefined) ?? null,
    flexible_window: (valid("flexible_window") as FlexibleWindow | null | undefined) ?? null,
    start_at: null,
    end_at: null,
    misfire: DEFAULT_MISFIRE,
    jitter: null,
  };
}

const DEFAULT_MISFIRE = misfirePolicySchema.parse({});

/** The preview's reference times: `from` (a job created then), and now for a `delay`. */
export function previewOptions(fromMs: number, nowMs: number, calendars: ReadonlyMap<string, ExclusionSet>) {
  return { calendars, anchorMs: fromMs, delayFromMs: nowMs };
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
  const timing = normalizeTiming(validPreviewFields(input), fromMs, previewOptions(fromMs, nowMs, calendars));
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
