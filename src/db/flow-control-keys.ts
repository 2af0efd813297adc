// The flow-control keys each tenant has used (migration 0012), recorded by a key's gate the first
// time a run asks it. What a key allows and holds lives in the gate; this is only the index.

/** Records a key of the tenant (again: no change). */
export async function recordFlowControlKey(
  db: D1Database,
  tenantId: string,
  key: string,
  nowMs: number,
): Promise<void> {
  await db
    .prepare("INSERT OR IGNORE INTO flow_control_keys (tenant_id, key, first_used_at_ms) VALUES (?, ?, ?)")
    .bind(tenantId, key, nowMs)
    .run();
}

/** The tenant's keys in name order, at most `limit`, after `afterKey` when paging. */
export async function listFlowControlKeys(
  db: D1Database,
  tenantId: string,
  limit: number,
  afterKey = "",
): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT key FROM flow_control_keys WHERE tenant_id = ? AND key > ? ORDER BY key LIMIT ?")
    .bind(tenantId, afterKey, limit)
    .all<{ key: string }>();
  return results.map((row) => row.key);
}
