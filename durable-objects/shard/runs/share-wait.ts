// Whether a tenant is throttled by its share of the dispatch window, for its stats and overview: a
// run of it that is due, not held by a flow gate or a limit, and still waiting in the shard past a
// pass's slack waits for room in the window, that is for its tenant's share (another tenant's work
// holds the rest). Read when asked, from the runs' own state: nothing is written while the shard is
// saturated.
import type { ShareWait } from "../../../src/shard/history-protocol";
import type { TenantShareWait } from "../../../src/shard/protocol";

/**
 * A due run is counted once it has waited this long: a pass picks what is due every few hundred
 * milliseconds (the backpressure retry is 250 ms), so a run waiting longer waits for the window.
 */
export const SHARE_WAIT_GRACE_MS = 1_000;

/** The tenant's (null: every tenant's) runs due and waiting for the window here, and the oldest. */
export function shareWaitOf(sql: SqlStorage, tenantId: string | null, nowMs: number): ShareWait {
  const tenant = tenantId === null ? "" : "tenant_id = ? AND";
  const row = sql
    .exec<{ n: number; oldest: number | null }>(
      `SELECT COUNT(*) AS n, MIN(due_at_ms) AS oldest FROM runs
       WHERE ${tenant} due_at_ms IS NOT NULL AND due_at_ms <= ? AND state = 'SCHEDULED' AND flow_gate IS NULL`,
      ...(tenantId === null ? [] : [tenantId]),
      nowMs - SHARE_WAIT_GRACE_MS,
    )
    .one();
  return { waitingRuns: row.n, oldestDueMs: row.n > 0 ? row.oldest : null };
}

/** Every tenant with runs waiting here for its share, the maintenance pass's view (tenant_throttled). */
export function shareWaitsByTenant(sql: SqlStorage, nowMs: number): TenantShareWait[] {
  return sql
    .exec<{ tenant_id: string; n: number; oldest: number }>(
      `SELECT tenant_id, COUNT(*) AS n, MIN(due_at_ms) AS oldest FROM runs
       WHERE due_at_ms IS NOT NULL AND due_at_ms <= ? AND state = 'SCHEDULED' AND flow_gate IS NULL
       GROUP BY tenant_id`,
      nowMs - SHARE_WAIT_GRACE_MS,
    )
    .toArray()
    .map((row) => ({ tenantId: row.tenant_id, waitingRuns: row.n, oldestDueMs: row.oldest }));
}
