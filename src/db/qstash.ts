// D1 statements only the QStash-compatible /v2 API needs.

import { allJobSources, groupByHome, type JobStores } from "./databases";
import type { DeadLetterRow } from "./dead-letters";
import { findJob, type JobRow, rowToJob, type StoredJob } from "./jobs";

/**
 * Frees a deduplication key whose window has passed, so a new message may take it: the unique
 * index on (tenant_id, idempotency_key) would otherwise refuse it for as long as the job lives.
 * Every job database is asked: the key is unique per database.
 */
export async function releaseIdempotencyKey(
  stores: JobStores,
  tenantId: string,
  idempotencyKey: string,
  createdBeforeMs: number,
): Promise<void> {
  await Promise.all(
    allJobSources(stores).map((db) =>
      db
        .prepare(
          "UPDATE jobs SET idempotency_key = NULL WHERE tenant_id = ? AND idempotency_key = ? AND created_at_ms < ?",
        )
        .bind(tenantId, idempotencyKey, createdBeforeMs)
        .run(),
    ),
  );
}

/** Removes dead letters from the DLQ (QStash's DLQ delete); the count actually removed. */
export async function deleteDeadLetters(
  db: D1Database,
  tenantId: string,
  ids: readonly string[],
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .prepare("DELETE FROM dead_letters WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))")
    .bind(tenantId, JSON.stringify(ids))
    .run();
  return result.meta.changes;
}

/** A tenant's jobs by id: one query per job database they live in; unknown ids are absent. */
export async function findJobsByIds(
  stores: JobStores,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, StoredJob>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const groups = groupByHome(stores, unique, (id) => id);
  const found = await Promise.all(
    groups.map(async ({ db, items }) => {
      const { results } = await db
        .prepare("SELECT * FROM jobs WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))")
        .bind(tenantId, JSON.stringify(items))
        .all<JobRow>();
      return results.map(rowToJob);
    }),
  );
  const jobs = new Map(found.flat().map((job) => [job.id, job]));
  // A job still in the legacy table while it is read (LEGACY_JOBS = "read").
  if (stores.legacy !== null) {
    for (const id of unique.filter((missing) => !jobs.has(missing))) {
      const job = await findJob(stores.legacy, tenantId, id);
      if (job !== null) jobs.set(id, job);
    }
  }
  return jobs;
}

/** A tenant's dead letters by id, one query. */
export async function findDeadLettersByIds(
  db: D1Database,
  tenantId: string,
  ids: readonly string[],
): Promise<DeadLetterRow[]> {
  if (ids.length === 0) return [];
  const { results } = await db
    .prepare(
      "SELECT * FROM dead_letters WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY created_at_ms DESC, id DESC",
    )
    .bind(tenantId, JSON.stringify([...new Set(ids)]))
    .all<DeadLetterRow>();
  return results;
}
