/**
 * FNV-1a 32-bit: a fast, stable, non-cryptographic hash. Used for shard placement and
 * deterministic fire-time jitter, so both survive restarts and agree across isolates.
 * `hash32("job_1") === hash32("job_1")`.
 */
export function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The shard that owns a job: `hash(job_id) mod shardCount`, stored on the job at create. */
export function shardForJob(jobId: string, shardCount: number): number {
  return hash32(jobId) % shardCount;
}

/**
 * A deterministic offset in [0, jitterMs) for one (job, scheduled instant): the same instant
 * always fires at the same spread-out moment, so retries of a tick never move it.
 */
export function fireJitterMs(jobId: string, scheduledAtMs: number, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  return hash32(`${jobId}:${scheduledAtMs}`) % jitterMs;
}
