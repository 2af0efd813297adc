// Reaching a shard's in-memory state from a workers-pool test (durable-objects/shard/state): read
// it, or change it as the shard itself would and commit the change, like any other change.
import { runInDurableObject } from "cloudflare:test";
import type { Run } from "../../durable-objects/shard/records/run";
import type { ShardScheduler } from "../../durable-objects/shard/shard-scheduler";
import type { JobRecord } from "../../durable-objects/shard/state/job-book";
import type { ShardState } from "../../durable-objects/shard/state/shard-state";
import { withTestTables } from "../../durable-objects/shard/test-tables";
import { stubFor } from "./scheduling";

/** Runs `work` on the shard's state and commits what it changed. */
export function withShardState<T>(
  stub: DurableObjectStub<ShardScheduler>,
  work: (state: ShardState) => T,
): Promise<T> {
  return runInDurableObject(stub, (instance: ShardScheduler) => {
    try {
      return work(instance.state);
    } finally {
      instance.state.commit();
    }
  });
}

/** Sets fields of every live run of the job (its indexes follow). */
export function patchRunsOf(jobId: string, patch: Partial<Run>): Promise<number> {
  return withShardState(stubFor(jobId), (state) => {
    const runs = state.runs.ofJob(jobId);
    for (const run of runs) state.changeRun(run, (changed) => Object.assign(changed, patch));
    return runs.length;
  });
}

/** Sets fields of the job's record on its shard (its timer is filed again). */
export function patchJobOf(jobId: string, patch: Partial<JobRecord>): Promise<void> {
  return withShardState(stubFor(jobId), (state) => {
    const job = state.jobs.get(jobId);
    if (job === undefined) throw new Error(`no job ${jobId} on its shard`);
    Object.assign(job, patch);
    state.touchJob(job);
  });
}

/** The job's record on its shard (a copy), or null. */
export function jobRecordOf(jobId: string): Promise<JobRecord | null> {
  return withShardState(stubFor(jobId), (state) => {
    const job = state.jobs.get(jobId);
    return job === undefined ? null : structuredClone(job);
  });
}

/** The job's live runs (copies), oldest instant first. */
export function liveRunsOf(jobId: string): Promise<Run[]> {
  return withShardState(stubFor(jobId), (state) =>
    state.runs
      .ofJob(jobId)
      .map((run) => structuredClone(run))
      .sort((a, b) => a.scheduled_at_ms - b.scheduled_at_ms),
  );
}

/**
 * Runs `use` with the shard's state laid out as the tables of schema v23 (runs, the jobs' timing
 * columns, run_history): SQL reads and changes as a test wrote them before storage by batch;
 * what it changes is taken back into memory and committed (durable-objects/shard/test-tables.ts).
 * `storage` is the object's storage, for its alarm.
 */
export function inShardTables<T>(
  stub: DurableObjectStub<ShardScheduler>,
  use: (sql: SqlStorage, storage: DurableObjectStorage) => T | Promise<T>,
): Promise<T> {
  return runInDurableObject(stub, async (instance: ShardScheduler, objectState) => {
    let result: T | Promise<T> | undefined;
    withTestTables(instance.state, (sql) => {
      result = use(sql, objectState.storage);
    });
    return await (result as T | Promise<T>);
  });
}
