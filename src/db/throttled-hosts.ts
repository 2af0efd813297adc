// The destination hosts each tenant's calls are throttled at (migration 0050), written by a
// host's gate when its throttle starts and ends. The throttle itself lives in the gate.

/** Records that the tenant's calls to `origin` are throttled (again: no change). */
export async function recordThrottledHost(
  db: D1Database,
  tenantId: string,
  origin: string,
  nowMs: number,
): Promise<void> {
  await db
    .prepare("INSERT OR IGNORE INTO throttled_hosts (tenant_id, origin, since_ms) VALUES (?, ?, ?)")
    .bind(tenantId, origin, nowMs)
    .run();
}

/** The host is no longer throttled for the tenant. */
export async function forgetThrottledHost(db: D1Database, tenantId: string, origin: string): Promise<void> {
  await db
    .prepare("DELETE FROM throttled_hosts WHERE tenant_id = ? AND origin = ?")
    .bind(tenantId, origin)
    .run();
}

/** The tenant's throttled hosts in origin order, at most `limit`. */
export async function listThrottledHosts(db: D1Database, tenantId: string, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT origin FROM throttled_hosts WHERE tenant_id = ? ORDER BY origin LIMIT ?")
    .bind(tenantId, limit)
    .all<{ origin: string }>();
  return results.map((row) => row.origin);
}
