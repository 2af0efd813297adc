// runs.trigger and runs.backfill on a job: both go to the shard, which must know the job, so an
// unconfirmed version is re-sent first (the push the outbox sweep would do). A deleted job never
// reaches its shard; other statuses are the shard's call.
import { EdgecronError } from "../../core/common/errors";
import { validationError } from "../../core/common/field-errors";
import { schedulesOf } from "../../core/schedules/schedule-set";
import type { StoredJob } from "../../db/jobs";
import { checkBackfillRange, syncJobs } from "../job-writes";
import { type ShardRefusalCode, shardRefusal } from "../shard-calls";
import { backfillJobRange, triggerJobNow } from "../start-work";
import { jobNotActive } from "./change-job";

export interface TriggeredRun {
  runId: string;
  scheduledAtMs: number;
  fireAtMs: number;
  /** Folded into a run of its debounce key already waiting. */
  folded: boolean;
}

/** One run now (or folded into its debounce key's); 400 when a key is given to a job with no debounce. */
export async function triggerJob(
  env: Env,
  job: StoredJob,
  debounceKey: string | undefined,
): Promise<TriggeredRun> {
  if (debounceKey !== undefined && !job.spec.debounce) {
    throw validationError([{ path: "debounce_key", message: "the job has no `debounce`" }]);
  }
  await syncJob(env, job);
  const result = await triggerJobNow(env, job, debounceKey);
  if (!result.ok) throw refusalFor(job, result.code);
  return {
    runId: result.runId,
    scheduledAtMs: result.scheduledAtMs,
    fireAtMs: result.fireAtMs,
    folded: result.folded,
  };
}

export interface Backfill {
  created: number;
  skipped: number;
  runIds: string[];
}

/** The schedule's instants in [from, to] run once each (checkBackfillRange says what range may run). */
export async function backfillJob(
  env: Env,
  job: StoredJob,
  range: { from: string; to: string },
  nowMs: number,
): Promise<Backfill> {
  const { fromMs, toMs, instants } = checkBackfillRange(schedulesOf(job.spec), range, nowMs);
  if (instants.length === 0) return { created: 0, skipped: 0, runIds: [] };
  await syncJob(env, job);
  const result = await backfillJobRange(env, job, fromMs, toMs);
  if (!result.ok) throw refusalFor(job, result.code);
  return { created: result.created, skipped: result.skipped, runIds: result.runIds };
}

async function syncJob(env: Env, job: StoredJob): Promise<void> {
  if (job.status === "DELETED") throw jobNotActive(job);
  if (job.syncedVersion < job.version) await syncJobs(env, [job]);
}

/** The job is in D1, so a shard that does not know it has not been sent it yet: retryable. */
function refusalFor(job: StoredJob, code: ShardRefusalCode): EdgecronError {
  if (code !== "job_not_found") return shardRefusal(code);
  return new EdgecronError("job_not_synced", `Job ${job.id} has not reached its shard yet; retry shortly`);
}
