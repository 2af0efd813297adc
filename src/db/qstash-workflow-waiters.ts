// D1 statements of workflow runs waiting for an event (migrations/0036_workflow_waiters.sql).

export interface WorkflowWaiterRow {
  tenant_id: string;
  event_id: string;
  run_id: string;
  url: string;
  /** JSON: the headers the run's next message is published with (name -> value). */
  headers: string;
  /** JSON: the SDK's wait step, completed with the event's data (or the timeout) on wake. */
  step: string;
  timeout_message_id: string;
  deadline_ms: number;
  created_at_ms: number;
}

/** Stores the waiter; a run waiting again on the same event replaces its earlier wait. */
export async function upsertWorkflowWaiter(db: D1Database, waiter: WorkflowWaiterRow): Promise<void> {
  await db
    .prepare(
      `INSERT OR REPLACE INTO workflow_waiters
       (tenant_id, event_id, run_id, url, headers, step, timeout_message_id, deadline_ms, created_at_ms)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
    )
    .bind(
      waiter.tenant_id,
      waiter.event_id,
      waiter.run_id,
      waiter.url,
      waiter.headers,
      waiter.step,
      waiter.timeout_message_id,
      waiter.deadline_ms,
      waiter.created_at_ms,
    )
    .run();
}

/** The event's waiters (of one run when `runId` is given), oldest first. */
export async function listWorkflowWaiters(
  db: D1Database,
  tenantId: string,
  eventId: string,
  runId?: string,
): Promise<WorkflowWaiterRow[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM workflow_waiters WHERE tenant_id = ?1 AND event_id = ?2 AND (?3 IS NULL OR run_id = ?3)
       ORDER BY created_at_ms LIMIT 1000`,
    )
    .bind(tenantId, eventId, runId ?? null)
    .all<WorkflowWaiterRow>();
  return results;
}

/** Takes the waiter away; false when another notify (or the timeout's own path) took it first. */
export async function takeWorkflowWaiter(
  db: D1Database,
  tenantId: string,
  eventId: string,
  runId: string,
): Promise<boolean> {
  const outcome = await db
    .prepare("DELETE FROM workflow_waiters WHERE tenant_id = ? AND event_id = ? AND run_id = ?")
    .bind(tenantId, eventId, runId)
    .run();
  return outcome.meta.changes > 0;
}
