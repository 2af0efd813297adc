// D1 statements only the QStash-compatible /v2 API needs.

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
