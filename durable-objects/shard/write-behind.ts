// Writes what the shard decided to others, in batches, off the dispatch path: job statuses the
// shard decided (COMPLETED, PAUSED after failures) to D1, and dead letters to the dead-letter
// queue (./runs/dead-letter-sends.ts). Everything stays marked in the shard until written, so a
// failure only delays it.
import { type JobStores, jobStores } from "../../src/db/databases";
import { applyShardJobStatusesToStores } from "../../src/db/job-store";
import { sendDeadLetters } from "./runs/dead-letter-sends";
import type { ShardState } from "./state/shard-state";

const JOBS_PER_FLUSH = 2_000;

export interface WriteBehindSummary {
  jobs: number;
  deadLetters: number;
  pausedJobs: { jobId: string; tenantId: string; version: number; reason: string }[];
}

/** One write-behind pass: job statuses to D1, dead letters out. */
export async function writeBehind(state: ShardState, env: Env, shard: number): Promise<WriteBehindSummary> {
  const jobs = await flushJobStatuses(state, jobStores(env));
  const pausedJobs = jobs
    .filter((job) => job.status === "PAUSED" && job.pause_reason !== null)
    .map((job) => ({
      jobId: job.job_id,
      tenantId: job.tenant_id,
      version: job.version,
      reason: job.pause_reason ?? "",
    }));
  // Never throws for a failed send: the rest of the alarm (pause alerts above all) goes on.
  const deadLetters = (await sendDeadLetters(state, env.DEAD_LETTER_QUEUE, shard, Date.now())).sent;
  return { jobs: jobs.length, deadLetters, pausedJobs };
}

/**
 * Statuses the shard decided (status_dirty 1) go to D1; a completion waiting for its last run
 * (status_dirty 2, ./state/shard-state.ts) goes once that run has settled.
 */
async function flushJobStatuses(state: ShardState, stores: JobStores) {
  const jobs = [...state.jobs.dirtyStatuses()]
    .filter((job) => job.status_dirty === 1)
    .slice(0, JOBS_PER_FLUSH);
  if (jobs.length === 0) return [];
  const written = jobs.map((job) => ({ job, status: job.status, version: job.version }));
  await applyShardJobStatusesToStores(
    stores,
    written.map(({ job, status, version }) => ({ id: job.job_id, status, version })),
    Date.now(),
  );
  for (const { job, status } of written) {
    if (job.status !== status || job.status_dirty !== 1) continue;
    job.status_dirty = 0;
    state.touchJob(job);
  }
  return jobs;
}
