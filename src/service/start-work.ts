// The actions that start work on an existing job or run, each refused while its tenant is
// suspended (./suspension.ts) before the shard is asked: the doors (/v1, /v2, the console through
// the API) call these, never the shard client's trigger, backfill, retry or run-now themselves.
import { backfillJob, fireJobNow, retryRun, triggerJob } from "../shard/client";
import type { BackfillResult, FireNowResult, RetryResult, TriggerResult } from "../shard/protocol";
import { callShard } from "./shard-calls";
import { refuseWhileSuspended } from "./suspension";

/** A job on its shard: what the actions below address. */
interface ShardedJob {
  id: string;
  tenantId: string;
  shard: number;
}

/** One run of the job now (`debounceKey` folds it into its key's run when the job debounces). */
export async function triggerJobNow(env: Env, job: ShardedJob, debounceKey?: string): Promise<TriggerResult> {
  await refuseWhileSuspended(env, job.tenantId, "trigger a job");
  return callShard("trigger the job", () => triggerJob(env, job.shard, job.id, debounceKey));
}

/** Runs of the schedule's instants in [fromMs, toMs]. */
export async function backfillJobRange(
  env: Env,
  job: ShardedJob,
  fromMs: number,
  toMs: number,
): Promise<BackfillResult> {
  await refuseWhileSuspended(env, job.tenantId, "backfill a job");
  return callShard("backfill the job", () => backfillJob(env, job.shard, job.id, fromMs, toMs));
}

/** A new attempt of a FAILED or DEAD_LETTERED run (a redrive claims its letter first: ./redrive.ts). */
export async function retryRunAttempt(
  env: Env,
  run: { tenantId: string; shard: number; runId: string },
): Promise<RetryResult> {
  await refuseWhileSuspended(env, run.tenantId, "retry a run");
  return callShard("retry the run", () => retryRun(env, run.shard, run.runId));
}

/** A waiting /v2 message (its delay, or a retry's backoff) delivered now. */
export async function runMessageNow(env: Env, job: ShardedJob): Promise<FireNowResult> {
  await refuseWhileSuspended(env, job.tenantId, "run a message now");
  return callShard("run the message now", () => fireJobNow(env, job.shard, job.id));
}
