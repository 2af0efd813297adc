// The one way new jobs are stored and sent: admitted (tenant limits and suspension; a refused
// request stores nothing), inserted in one D1 batch per database (durable before any answer),
// then pushed to their shards (what the push misses, the outbox sweep re-sends). Every create
// verb (v1 create and batch, QStash publish and schedules, a workflow's wake-ups) goes through it.
import { jobStores } from "../../db/databases";
import { insertStoredJobs } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { admitJobCreates } from "../admission";
import { syncJobs } from "../job-writes";

export interface StoreNewJobsOptions<Duplicate> {
  /** What else must be stored once the jobs are admitted and before they are (a queue, records). */
  beforeInsert?: () => Promise<void>;
  /**
   * The insert failed: the job another request stored under the same key (a unique index lets
   * exactly one in), or null when the failure was something else, which is then thrown.
   */
  onInsertRefused: (error: unknown) => Promise<Duplicate | null>;
}

export type StoreNewJobsResult<Duplicate> = { stored: true } | { stored: false; duplicate: Duplicate };

export async function storeNewJobs<Duplicate>(
  env: Env,
  tenantId: string,
  jobs: readonly StoredJob[],
  nowMs: number,
  options: StoreNewJobsOptions<Duplicate>,
): Promise<StoreNewJobsResult<Duplicate>> {
  await admitJobCreates(env, tenantId, jobs.length, nowMs);
  await options.beforeInsert?.();
  try {
    await insertStoredJobs(jobStores(env), jobs);
  } catch (error) {
    const duplicate = await options.onInsertRefused(error);
    if (duplicate === null) throw error;
    return { stored: false, duplicate };
  }
  await syncJobs(env, jobs);
  return { stored: true };
}
