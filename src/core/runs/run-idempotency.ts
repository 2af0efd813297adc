/**
 * The Idempotency-Key a target receives for one scheduled instant of a job: `{job_id}:{scheduled_at}`
 * with the instant in RFC 3339 UTC. Every attempt, retry and redrive of that instant carries the
 * same key, and run history stores it, so the formula lives here once.
 * @example runIdempotencyKey("job_01", Date.UTC(2026, 0, 1)) === "job_01:2026-01-01T00:00:00.000Z"
 */
export function runIdempotencyKey(jobId: string, scheduledAtMs: number): string {
  return `${jobId}:${new Date(scheduledAtMs).toISOString()}`;
}
