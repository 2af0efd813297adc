// The one way a stored job reaches its shard: the snapshot the shard holds (`toShardJob`), with the
// calendars its spec names attached fresh from D1 (the shard evaluates exclusions with them and
// never reads D1 on its hot path), sent through the shard client; and, for the callers that keep
// the outbox (the write path, the outbox sweep), the confirmed versions marked synced in D1.
import { attachCalendars } from "../db/calendars";
import { jobStores } from "../db/databases";
import { markStoredJobsSynced } from "../db/job-store";
import { type StoredJob, specJsonOf } from "../db/jobs";
import { logEvent } from "../log";
import { pushJobs } from "../shard/client";
import type { ShardJob } from "../shard/protocol";

export function toShardJob(job: StoredJob): ShardJob {
  return {
    jobId: job.id,
    tenantId: job.tenantId,
    shard: job.shard,
    version: job.version,
    // A one-shot that reads COMPLETED because its instant passed is still ACTIVE to its shard,
    // which fires that instant if it has not (a push that arrives late, a resume after it).
    status: job.status === "COMPLETED" && job.storedStatus === "ACTIVE" ? "ACTIVE" : job.status,
    specJson: specJsonOf(job.spec),
    createdAtMs: job.createdAtMs,
    ...(job.endsAtMs === null ? {} : { completionImplied: true }),
  };
}

/**
 * Sends the jobs to their shards with their calendars. Never throws: returns the ids whose
 * version a shard confirmed; the rest stay unsynced in D1 for the outbox sweep to re-send.
 */
export async function sendJobsToShards(env: Env, jobs: readonly StoredJob[]): Promise<Set<string>> {
  const snapshots = jobs.map(toShardJob);
  let withCalendars: ShardJob[];
  try {
    withCalendars = await attachCalendars(env.DB, snapshots);
  } catch (error) {
    // A job pushed without its calendars would fire on excluded instants: push none of them.
    logEvent("shard.push_failed", { jobs: snapshots.length, error, note: "calendars unreadable" });
    return new Set();
  }
  return pushJobs(env, withCalendars);
}

/** One push, then the confirmed versions marked synced in D1 (and on the rows given); returns those. */
export async function syncJobsOnce(env: Env, jobs: readonly StoredJob[]): Promise<StoredJob[]> {
  const confirmed = await sendJobsToShards(env, jobs);
  const synced = jobs.filter((job) => confirmed.has(job.id));
  await markStoredJobsSynced(jobStores(env), synced);
  for (const job of synced) job.syncedVersion = job.version;
  return synced;
}
