import { durationMs } from "./duration";
import { type CompiledExclusions, excludedUntilMs, isExcluded, NO_EXCLUSIONS } from "./exclusions";
import { fireJitterMs } from "./jitter";
import type { JobSpec } from "./job-spec";
import {
  EXCLUSION_SEARCH_HORIZON_MS,
  EXCLUSION_SEARCH_LIMIT,
  schedulesOf,
  unionFireTimes,
} from "./schedule-set";

/** One upcoming instant of a job: the schedule's instant and when it actually fires (jitter). */
export interface JobFire {
  scheduledAtMs: number;
  fireAtMs: number;
  /** An exclusion (calendar or inline `exclude`) covers the instant: the shard records it SKIPPED. */
  excluded?: true;
}

/**
 * The job's next `count` instants strictly after `afterMs` (a scheduled instant, not a fire
 * time), the union of its specs inside its [start_at, end_at] window, each with its jittered fire
 * time; excluded instants are listed too, flagged (the shard records them as SKIPPED when due).
 * `max_runs` is not applied here: it depends on how many runs happened, which the shard knows.
 */
export function upcomingFires(
  spec: JobSpec,
  jobId: string,
  afterMs: number,
  count: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): JobFire[] {
  const startMs = spec.start_at === null ? null : Date.parse(spec.start_at);
  const endMs = spec.end_at === null ? null : Date.parse(spec.end_at);
  const jitterMs = spec.jitter === null ? 0 : durationMs(spec.jitter);
  // Instants before start_at never fire: begin just before the window opens.
  const fromMs = startMs !== null && startMs - 1 > afterMs ? startMs - 1 : afterMs;
  const fires: JobFire[] = [];
  for (const scheduledAtMs of unionFireTimes(schedulesOf(spec), fromMs, count)) {
    if (endMs !== null && scheduledAtMs > endMs) break;
    if (isExcluded(scheduledAtMs, exclusions))
      fires.push({ scheduledAtMs, fireAtMs: scheduledAtMs, excluded: true });
    else
      fires.push({ scheduledAtMs, fireAtMs: scheduledAtMs + fireJitterMs(jobId, scheduledAtMs, jitterMs) });
  }
  return fires;
}

/**
 * The next `count` instants that will actually run (excluded ones left out), examining at most
 * EXCLUSION_SEARCH_LIMIT instants within EXCLUSION_SEARCH_HORIZON_MS: what `next_fire_times` and the console list.
 */
export function upcomingRunFires(
  spec: JobSpec,
  jobId: string,
  afterMs: number,
  count: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): JobFire[] {
  const fires: JobFire[] = [];
  let cursorMs = afterMs;
  let examined = 0;
  const horizonMs = afterMs + EXCLUSION_SEARCH_HORIZON_MS;
  while (fires.length < count && examined < EXCLUSION_SEARCH_LIMIT && cursorMs <= horizonMs) {
    const batch = upcomingFires(spec, jobId, cursorMs, exclusions.sets.length === 0 ? count : 64, exclusions);
    let nextCursorMs = batch.at(-1)?.scheduledAtMs;
    for (const fire of batch) {
      examined += 1;
      if (!fire.excluded) {
        if (fires.length < count) fires.push(fire);
        continue;
      }
      // An excluded instant's whole local day is excluded: continue the search after it.
      const untilMs = excludedUntilMs(fire.scheduledAtMs, exclusions) - 1;
      if (untilMs > fire.scheduledAtMs) {
        nextCursorMs = untilMs;
        break;
      }
    }
    if (nextCursorMs === undefined || nextCursorMs <= cursorMs) break;
    cursorMs = nextCursorMs;
  }
  return fires;
}

/**
 * The first fire of a job created (or first placed on its shard) at `createdAtMs`: its first
 * instant strictly after creation, exactly as the create response's `next_fire_times[0]` and the
 * schedule preview from that time list it (both are `upcomingFires` / `nextFireTimes` after the
 * same instant). So an interval without anchor, anchored at its creation, first fires one
 * `every` later; a future `anchor` or `start_at` is itself the first fire. One exception: a
 * job whose only spec is a one-shot whose `at` is already past (accepted within the misfire
 * grace) still fires, late.
 *
 * @example firstFire(specEvery15mAnchoredAt(t), "job_1", t) // { scheduledAtMs: t + 900_000, fireAtMs: t + 900_000 }
 */
export function firstFire(
  spec: JobSpec,
  jobId: string,
  createdAtMs: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): JobFire | null {
  let afterMs = createdAtMs;
  const [only, ...others] = schedulesOf(spec);
  if (only?.type === "once" && only.at !== undefined && others.length === 0) {
    afterMs = Math.min(afterMs, Date.parse(only.at) - 1);
  }
  return upcomingFires(spec, jobId, afterMs, 1, exclusions)[0] ?? null;
}
