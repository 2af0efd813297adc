// The push of a control action (pause, delete, edit): what stops calls. Its 2xx must mean the
// shard knows, because the shard's claim is what refuses every run not yet started; so the push
// is retried at once inside the request, and the D1 bookkeeping that follows it (marking the
// version synced, which only spares the outbox sweep a re-send) is left out of the answer path.
import { jobStores } from "../db/databases";
import { deleteStoredJobAtOnce, markStoredJobsSynced } from "../db/job-store";
import type { StoredJob } from "../db/jobs";
import { markJobsSyncedSoon } from "../db/synced-marks";
import { logEvent } from "../log";
import { sendJobsToShards } from "./job-push";
import { type JobChange, type PushOptions, syncJobs, writeJobVersion } from "./job-writes";

/**
 * "stop" (pause, resume, delete) answers as soon as the shard confirmed; "edit" also waits for
 * D1 to record that it did (a read right after an edit sees it synced).
 */
export type ControlKind = "stop" | "edit";

/** saveJobVersion for a control action: the version written, then pushed as below. */
export async function saveControlAction(
  env: Env,
  job: StoredJob,
  change: JobChange,
  nowMs: number,
  kind: ControlKind,
  options: PushOptions = {},
): Promise<StoredJob> {
  const next = await writeJobVersion(env, job, change, nowMs);
  await pushControlAction(env, [next], kind, options);
  return next;
}

/**
 * A DELETE of a live job in one D1 statement, then pushed as below; null when the job is not a
 * live row of its home database (unknown, already deleted, still in the legacy table), for the
 * caller's read-then-write path to answer.
 */
export async function deleteJobAtOnce(
  env: Env,
  tenantId: string,
  jobId: string,
  nowMs: number,
  options: PushOptions = {},
): Promise<StoredJob | null> {
  const deleted = await deleteStoredJobAtOnce(jobStores(env), tenantId, jobId, nowMs);
  if (deleted !== null) await pushControlAction(env, [deleted], "stop", options);
  return deleted;
}

/**
 * Pauses before each attempt inside the request: an overloaded shard refuses or times out an RPC
 * now and then, and a second try a moment later usually lands. Past these the request answers
 * and the background re-sends take over.
 */
const IN_REQUEST_RETRY_DELAYS_MS = [0, 50, 200];

/** Pushes the jobs' new versions; returns once every shard confirmed or the attempts ran out. */
export async function pushControlAction(
  env: Env,
  jobs: readonly StoredJob[],
  kind: ControlKind,
  options: PushOptions = {},
): Promise<void> {
  let left = [...jobs];
  const confirmed: StoredJob[] = [];
  for (const delayMs of IN_REQUEST_RETRY_DELAYS_MS) {
    if (left.length === 0) break;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const synced = await sendJobsToShards(env, left);
    for (const job of left) if (synced.has(job.id)) confirmed.push(job);
    left = left.filter((job) => !synced.has(job.id));
  }
  for (const job of confirmed) job.syncedVersion = job.version;
  const afterAnswer = finishInBackground(env, confirmed, left, kind, options);
  if (options.waitUntil && kind === "stop") options.waitUntil(afterAnswer);
  else await afterAnswer;
  for (const job of jobs) {
    logEvent("job.updated", {
      tenant_id: job.tenantId,
      job_id: job.id,
      version: job.version,
      status: job.status,
      shard: job.shard,
      synced: job.syncedVersion === job.version,
    });
  }
}

/**
 * Records what the shards confirmed; what they did not goes to the usual background re-sends.
 * After a "stop" nobody reads the mark right away, so it joins the isolate's other confirmations
 * (one D1 statement for many deletes in a flood); an edit's is written before it answers.
 */
async function finishInBackground(
  env: Env,
  confirmed: StoredJob[],
  unconfirmed: StoredJob[],
  kind: ControlKind,
  options: PushOptions,
): Promise<void> {
  try {
    if (kind === "stop") await markJobsSyncedSoon(jobStores(env), confirmed);
    else await markStoredJobsSynced(jobStores(env), confirmed);
  } catch (error) {
    logEvent("job.mark_synced_failed", { jobs: confirmed.length, error, note: "the sweep re-sends them" });
  }
  if (unconfirmed.length > 0) await syncJobs(env, unconfirmed, options);
}
