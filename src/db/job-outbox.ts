// The outbox of job definitions (`synced_version < version`): the versions shards confirmed, the
// jobs still to send, and the statuses shards decided.
import type { JobStatus } from "../core/runs/run-state";
import { type JobRow, rowToJob, type StoredJob } from "./jobs";

/**
 * Records that shards confirmed `version` of these jobs: synced_version becomes the confirmed
 * version, never the row's newer one (an edit written meanwhile stays unsynced for the outbox
 * sweep) and never moves backwards.
 */
export async function markJobsSynced(db: D1Database, confirmed: readonly { id: string; version: number }[]) {
  if (confirmed.length === 0) return;
  await db
    .prepare(
      `UPDATE jobs SET synced_version = confirmed.version
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS version
             FROM json_each(?)) AS confirmed
       WHERE jobs.id = confirmed.id AND jobs.synced_version < confirmed.version
         AND jobs.version >= confirmed.version`,
    )
    .bind(JSON.stringify(confirmed.map((job) => [job.id, job.version])))
    .run();
}

/** The outbox: jobs whose latest version no shard confirmed yet, least recently changed first. */
export async function listUnsyncedJobs(db: D1Database, limit: number): Promise<StoredJob[]> {
  const { results } = await db
    .prepare("SELECT * FROM jobs WHERE synced_version < version ORDER BY updated_at_ms LIMIT ?")
    .bind(limit)
    .all<JobRow>();
  return results.map(rowToJob);
}

/**
 * Statuses a shard decided (COMPLETED keeps the version; a shard-side pause bumped it by one),
 * written as synced. Never resurrects a deletion or overwrites a newer edit D1 already holds.
 * One statement for all of them: a burst of one-shot jobs completes thousands at once.
 */
export async function applyShardJobStatuses(
  db: D1Database,
  decided: readonly { id: string; status: JobStatus; version: number }[],
  nowMs: number,
): Promise<void> {
  if (decided.length === 0) return;
  await db
    .prepare(
      `UPDATE jobs SET status = decided.status, version = decided.version, synced_version = decided.version,
         updated_at_ms = ?2
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS status,
               json_extract(value, '$[2]') AS version FROM json_each(?1)) AS decided
       WHERE jobs.id = decided.id AND jobs.version IN (decided.version, decided.version - 1)
         AND jobs.status NOT IN ('DELETED')`,
    )
    .bind(JSON.stringify(decided.map((job) => [job.id, job.status, job.version])), nowMs)
    .run();
}
