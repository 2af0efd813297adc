import { durationMs } from "./duration";
import { fireJitterMs } from "./jitter";
import type { JobSpec } from "./job-spec";
import { nextFireTimes } from "./schedule";

/** One upcoming instant of a job: the schedule's instant and when it actually fires (jitter). */
export interface JobFire {
  scheduledAtMs: number;
  fireAtMs: number;
}

/**
 * The job's next `count` instants strictly after `afterMs` (a scheduled instant, not a fire
 * time), inside its [start_at, end_at] window, each with its jittered fire time.
 * `max_runs` is not applied here: it depends on how many runs happened, which the shard knows.
 */
export function upcomingFires(spec: JobSpec, jobId: string, afterMs: number, count: number): JobFire[] {
  const startMs = spec.start_at === null ? null : Date.parse(spec.start_at);
  const endMs = spec.end_at === null ? null : Date.parse(spec.end_at);
  const jitterMs = spec.jitter === null ? 0 : durationMs(spec.jitter);
  // Instants before start_at never fire: begin just before the window opens.
  const fromMs = startMs !== null && startMs - 1 > afterMs ? startMs - 1 : afterMs;
  const fires: JobFire[] = [];
  for (const scheduledAtMs of nextFireTimes(spec.schedule, fromMs, count)) {
    if (endMs !== null && scheduledAtMs > endMs) break;
    fires.push({ scheduledAtMs, fireAtMs: scheduledAtMs + fireJitterMs(jobId, scheduledAtMs, jitterMs) });
  }
  return fires;
}

/**
 * The first fire of a job created (or first placed on its shard) at `createdAtMs`: its first
 * instant strictly after creation, exactly as the create response's `next_fire_times[0]` and the
 * schedule preview from that time list it (both are `upcomingFires` / `nextFireTimes` after the
 * same instant). So an interval without anchor, anchored at its creation, first fires one
 * `every` later; a future `anchor` or `start_at` is itself the first fire. One exception: a
 * one-shot whose `at` is already past (accepted within the misfire grace) still fires, late.
 *
 * @example firstFire(specEvery15mAnchoredAt(t), "job_1", t) // { scheduledAtMs: t + 900_000, fireAtMs: t + 900_000 }
 */
export function firstFire(spec: JobSpec, jobId: string, createdAtMs: number): JobFire | null {
  let afterMs = createdAtMs;
  if (spec.schedule.type === "once" && spec.schedule.at !== undefined) {
    afterMs = Math.min(afterMs, Date.parse(spec.schedule.at) - 1);
  }
  return upcomingFires(spec, jobId, afterMs, 1)[0] ?? null;
}
