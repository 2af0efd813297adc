// A job's fire-time jitter: a deterministic offset per instant (see fireJitterMs).
import { hash32 } from "../common/stable-hash";

/**
 * A deterministic offset in [0, jitterMs) for one (job, scheduled instant), to spread jobs
 * that share a cron instant (the top-of-the-minute and midnight bursts). The same instant
 * always maps to the same offset, so a re-run alarm pass or a re-dispatch never moves it.
 * The idempotency key stays `(job_id, scheduled_at)` with the un-jittered instant.
 *
 * @example fireJitterMs("job_1", Date.UTC(2026, 11, 1), 60_000) // integer in [0, 60_000), same every call
 */
export function fireJitterMs(jobId: string, scheduledAtMs: number, jitterMs: number): number {
  if (!(jitterMs >= 1)) return 0;
  // Scale instead of `%`: uses the high bits and needs no integer jitterMs.
  return Math.min(
    Math.floor((hash32(`${jobId}:${scheduledAtMs}`) / 2 ** 32) * jitterMs),
    Math.ceil(jitterMs) - 1,
  );
}
