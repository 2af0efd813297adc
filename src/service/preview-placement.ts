// A preview placed as a job's delivery window and flexible window place its runs: what
// `POST /v1/schedules/preview` answers when the request carries either.
import { compileExclusions, type ExclusionSet } from "../core/exclusions";
import type { JobSpec, Schedule } from "../core/job-spec";
import { normalizeSchedule } from "../core/normalize";
import { placedPreview } from "../core/preview";
import { EXCLUSION_SEARCH_LIMIT, includedFireTimes } from "../core/schedule-set";

/** Where the preview's runs fire with a delivery window or flexible window (see placedPreview). */
export function previewPlacedFires(
  placement: Pick<JobSpec, "window" | "flexible_window">,
  jobId: string,
  schedules: readonly Schedule[],
  exclusions: readonly ExclusionSet[],
  nowMs: number,
  fromMs: number,
  count: number,
) {
  const normalized = schedules.map((schedule) => normalizeSchedule(schedule, nowMs, fromMs));
  const compiled = compileExclusions(exclusions);
  const placed = placedPreview(
    { ...placement, schedules: normalized },
    jobId,
    (afterMs, wanted) => includedFireTimes(normalized, compiled, afterMs, wanted).fireTimesMs,
    fromMs,
    count,
    EXCLUSION_SEARCH_LIMIT,
  );
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    fire_times: placed.fires.map((fire) => iso(fire.fireAtMs)),
    fires: placed.fires.map((fire) => ({
      scheduled_at: iso(fire.scheduledAtMs),
      fire_at: iso(fire.fireAtMs),
    })),
    skipped: placed.skipped.map((skip) => ({ scheduled_at: iso(skip.scheduledAtMs), reason: skip.reason })),
  };
}
