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
