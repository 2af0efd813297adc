// Bulk control calls that go on after their 202 (migration 0046): one row each, its progress
// moved by the worker that runs it, read by GET /v1/jobs/bulk/{id}.

export type BulkOperationState = "running" | "succeeded" | "failed";

export interface BulkOperation {
  id: string;
  tenantId: string;
  action: string;
  matched: number;
  done: number;
  state: BulkOperationState;
  error: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

interface BulkOperationRow {
  id: string;
  tenant_id: string;
  action: string;
  matched: number;
  done: number;
  state: BulkOperationState;
  error: string | null;
  created_at_ms: number;
  updated_at_ms: number;
}

function rowToOperation(row: BulkOperationRow): BulkOperation {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    action: row.action,
    matched: row.matched,
    done: row.done,
    state: row.state,
    error: row.error,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  };
}

export async function insertBulkOperation(db: D1Database, operation: BulkOperation): Promise<void> {
  await db
    .prepare(
      `INSERT INTO bulk_operations (id, tenant_id, action, matched, done, state, error, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      operation.id,
      operation.tenantId,
      operation.action,
      operation.matched,
      operation.done,
      operation.state,
      operation.error,
      operation.createdAtMs,
      operation.updatedAtMs,
    )
    .run();
}

/** Moves the operation's progress (and, at the end, its state). */
export async function updateBulkOperation(
  db: D1Database,
  id: string,
  progress: { done: number; state: BulkOperationState; error?: string | null },
  nowMs: number,
): Promise<void> {
  await db
    .prepare("UPDATE bulk_operations SET done = ?, state = ?, error = ?, updated_at_ms = ? WHERE id = ?")
    .bind(progress.done, progress.state, progress.error ?? null, nowMs, id)
    .run();
}

/** The tenant's operation, or null (another tenant's is not found either). */
export async function findBulkOperation(
  db: D1Database,
  tenantId: string,
  id: string,
): Promise<BulkOperation | null> {
  const row = await db
    .prepare("SELECT * FROM bulk_operations WHERE id = ? AND tenant_id = ?")
    .bind(id, tenantId)
    .first<BulkOperationRow>();
  return row === null ? null : rowToOperation(row);
}
