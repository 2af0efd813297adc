// What `POST /v1/schedules/preview` answers: the runs of a job created at `from`, checked as a
// create checks it (src/core/jobs/preview.ts), in the API's shape.

import { fieldErrorsOf, validationError } from "../core/common/field-errors";
import { jobSpecIssues, scheduleElementIssues } from "../core/jobs/normalize";
import {
  type PreviewInput,
  previewInputSchema,
  previewOptions,
  previewRuns,
  validPreviewFields,
} from "../core/jobs/preview";
import { missingScheduleIssues } from "../core/jobs/schedule-set-check";
import type { ExclusionSet } from "../core/schedules/exclusions";
import { searchStopView } from "../core/schedules/search-bound";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The preview's answer, or a 400 naming every field a create would refuse. `stopped` is present
 * only when a bound stopped the search before `count` runs (docs/API.md); `fires` and `skipped`
 * only with a `window` or `flexible_window`.
 */
export function schedulePreview(
  input: PreviewInput,
  calendars: ReadonlyMap<string, ExclusionSet>,
  nowMs: number,
) {
  const result = previewRuns(input, calendars, nowMs);
  if (!result.ok) throw validationError(result.issues);
  const { preview } = result;
  return {
    fire_times: preview.fireTimesMs.map(iso),
    excluded: preview.excludedMs.map(iso),
    ...(preview.placed === null
      ? {}
      : {
          fires: preview.placed.fires.map((fire) => ({
            scheduled_at: iso(fire.scheduledAtMs),
            fire_at: iso(fire.fireAtMs),
          })),
          skipped: preview.placed.skipped.map((skip) => ({
            scheduled_at: iso(skip.scheduledAtMs),
            reason: skip.reason,
          })),
        }),
    ...(preview.stop === null ? {} : { stopped: searchStopView(preview.stop) }),
  };
}

/**
 * The preview's body, or a 400 naming every bad field, as checkJobInput names a create's: the
 * schema's issues, a missing spec, and the checks that need `from` or several fields on what is
 * valid on its own (so one answer names every problem, the same ones a create would name).
 */
export function checkPreviewInput(
  raw: unknown,
  calendars: ReadonlyMap<string, ExclusionSet>,
  nowMs: number,
): PreviewInput {
  const parsed = previewInputSchema.safeParse(raw);
  const missing = missingScheduleIssues(raw);
  if (parsed.success && missing.length === 0) return parsed.data;
  const errors = parsed.success ? [] : fieldErrorsOf(parsed.error.issues, []);
  errors.push(...missing);
  const fields = validPreviewFields(raw);
  const from = previewInputSchema.shape.from.safeParse((raw as { from?: unknown } | null)?.from);
  const fromMs = from.success && from.data !== undefined ? Date.parse(from.data) : nowMs;
  const options = previewOptions(fromMs, nowMs, calendars);
  errors.push(...jobSpecIssues(fields, fromMs, options));
  if (fields.schedules === undefined && typeof raw === "object" && raw !== null) {
    const schedules = (raw as Record<string, unknown>).schedules;
    errors.push(...scheduleElementIssues(schedules, fields.misfire, fromMs, options));
  }
  throw validationError(errors);
}
