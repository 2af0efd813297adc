// Reads of /v2 messages (each a job of its own) and the deduplication of a publish: a
// deduplication id is the job's idempotency key, held for QStash's window and then let go.
import { jobStores } from "../../db/databases";
import { findStoredJob, findStoredJobByIdempotencyKey, insertStoredJobs } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { findJobsByIds, releaseIdempotencyKey } from "../../db/qstash";

/** The tenant's job of that id (any status), or null. */
export function findMessageJob(env: Env, tenantId: string, id: string): Promise<StoredJob | null> {
  return findStoredJob(jobStores(env), tenantId, id);
}

/** The tenant's jobs by id, one read per job database; unknown ids are absent. */
export function messageJobsByIds(
  env: Env,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, StoredJob>> {
  return findJobsByIds(jobStores(env), tenantId, ids);
}

/** The job that holds this idempotency key, or null. */
export function jobWithIdempotencyKey(env: Env, tenantId: string, key: string): Promise<StoredJob | null> {
  return findStoredJobByIdempotencyKey(jobStores(env), tenantId, key);
}

/**
 * The message a deduplication key names if it was created at or after `windowStartMs`; a key
 * held by an older message is let go (a new message may take it) and the answer is null.
 */
export async function duplicateInWindow(
  env: Env,
  tenantId: string,
  key: string,
  windowStartMs: number,
): Promise<StoredJob | null> {
  const existing = await jobWithIdempotencyKey(env, tenantId, key);
  if (existing === null) return null;
  if (existing.createdAtMs > windowStartMs) return existing;
  await releaseIdempotencyKey(jobStores(env), tenantId, key, windowStartMs);
  return null;
}

/** Stores jobs already admitted and built (a workflow's wake-up step), unsynced: the caller syncs. */
export function insertMessageJobs(env: Env, jobs: readonly StoredJob[]): Promise<void> {
  return insertStoredJobs(jobStores(env), jobs);
}
