// What `POST /v1/schedules/preview` answers: the runs of a job created at `from`, checked as a
// create checks it (src/core/preview.ts), in the API's shape.
import type { ExclusionSet } from "../core/exclusions";
import { validationError } from "../core/field-errors";
import { type PreviewInput, previewRuns } from "../core/preview";
import { searchStopView } from "../core/search-bound";

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
