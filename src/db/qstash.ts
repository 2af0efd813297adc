// D1 statements only the QStash-compatible /v2 API needs.
import type { DeadLetterRow } from "./dead-letters";
import { type JobRow, rowToJob, type StoredJob } from "./jobs";

/**
 * Frees a deduplication key whose window has passed, so a new message may take it: the unique
 * index on (tenant_id, idempotency_key) would otherwise refuse it for as long as the job lives.
 */
export async function releaseIdempotencyKey(
  db: D1Database,
  tenantId: string,
  idempotencyKey: string,
  createdBeforeMs: number,
): Promise<void> {
  await db
    .prepare(
      "UPDATE jobs SET idempotency_key = NULL WHERE tenant_id = ? AND idempotency_key = ? AND created_at_ms < ?",
    )
    .bind(tenantId, idempotencyKey, createdBeforeMs)
    .run();
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

/** A tenant's jobs by id, one query; unknown ids are absent from the map. */
export async function findJobsByIds(
  db: D1Database,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, StoredJob>> {
  if (ids.length === 0) return new Map();
  const { results } = await db
    .prepare("SELECT * FROM jobs WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))")
    .bind(tenantId, JSON.stringify([...new Set(ids)]))
    .all<JobRow>();
  return new Map(results.map((row) => [row.id, rowToJob(row)]));
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
