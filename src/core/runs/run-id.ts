/**
 * A run's id is derived from its job and its scheduled instant, so one (job, instant) is one run
 * however often a tick re-fires, and the id alone leads to the job (and from the job to its
 * shard): reading a run never needs a scan or a lookup table.
 * @example runIdFor("job_01ABC", 1764547200000) === "run_01ABC_1764547200000"
 */
export function runIdFor(jobId: string, scheduledAtMs: number): string {
  return `run_${jobId.startsWith("job_") ? jobId.slice(4) : jobId}_${scheduledAtMs}`;
}

/**
 * The job and instant a run id names, or null for an id `runIdFor` cannot have made.
 * @example parseRunId("run_01ABC_1764547200000") // { jobId: "job_01ABC", scheduledAtMs: 1764547200000 }
 */
export function parseRunId(runId: string): { jobId: string; scheduledAtMs: number } | null {
  const match = /^run_([A-Za-z0-9_-]+)_(\d{1,16})$/.exec(runId);
  if (match === null) return null;
  const [, jobSuffix, instant] = match as unknown as [string, string, string];
  const scheduledAtMs = Number(instant);
  if (!Number.isSafeInteger(scheduledAtMs)) return null;
  return { jobId: `job_${jobSuffix}`, scheduledAtMs };
}
