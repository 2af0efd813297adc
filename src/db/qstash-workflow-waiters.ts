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
  await insertWaiter(db, "INSERT OR REPLACE", waiter).run();
}

/** The waiter's row; `OR REPLACE` for a new wait, `OR IGNORE` where a restore must not undo a newer one. */
function insertWaiter(
  db: D1Database,
  insert: "INSERT OR REPLACE" | "INSERT OR IGNORE",
  waiter: WorkflowWaiterRow,
): D1PreparedStatement {
  return db
    .prepare(
      `${insert} INTO workflow_waiters
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
    );
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

/** The wake-up of one waiter: the step message that carries the event to its run. */
export interface WaiterWakeUp {
  messageId: string;
  callType: string;
  bodyBase64: string;
}

/** The waiter, matched by its timeout message too: a run that waits again is another waiter. */
const SAME_WAITER = `SELECT 1 FROM workflow_waiters
  WHERE tenant_id = ?1 AND event_id = ?2 AND run_id = ?3 AND timeout_message_id = ?4`;

/**
 * Takes the waiter for its wake-up, in one D1 transaction: the wake-up step is listed in its run,
 * the timeout's step unlisted and the waiter deleted, or nothing changes. False when another
 * notify (or a new wait of the run) took it first.
 */
export async function takeWaiterForWakeUp(
  db: D1Database,
  waiter: WorkflowWaiterRow,
  wakeUp: WaiterWakeUp,
  nowMs: number,
): Promise<boolean> {
  const keys = [waiter.tenant_id, waiter.event_id, waiter.run_id, waiter.timeout_message_id] as const;
  const [, , taken] = await db.batch([
    db
      .prepare(
        `INSERT INTO workflow_steps (tenant_id, run_id, message_id, call_type, body_base64, created_at_ms)
         SELECT ?1, ?3, ?5, ?6, ?7, ?8 WHERE EXISTS (${SAME_WAITER})`,
      )
      .bind(...keys, wakeUp.messageId, wakeUp.callType, wakeUp.bodyBase64, nowMs),
    db
      .prepare(
        `DELETE FROM workflow_steps WHERE tenant_id = ?1 AND run_id = ?3 AND message_id = ?4
         AND EXISTS (${SAME_WAITER})`,
      )
      .bind(...keys),
    db
      .prepare(
        `DELETE FROM workflow_waiters
         WHERE tenant_id = ?1 AND event_id = ?2 AND run_id = ?3 AND timeout_message_id = ?4`,
      )
      .bind(...keys),
  ]);
  return (taken?.meta.changes ?? 0) > 0;
}

/**
 * Undoes takeWaiterForWakeUp when the wake-up message could not be stored: the waiter and its
 * timeout's step back (the step at its place in the run's order), the wake-up step unlisted.
 */
export async function restoreWaiter(
  db: D1Database,
  waiter: WorkflowWaiterRow,
  timeoutStep: { seq: number; call_type: string; body_base64: string; created_at_ms: number } | null,
  wakeUpMessageId: string,
): Promise<void> {
  await db.batch([
    db
      .prepare("DELETE FROM workflow_steps WHERE tenant_id = ? AND run_id = ? AND message_id = ?")
      .bind(waiter.tenant_id, waiter.run_id, wakeUpMessageId),
    ...(timeoutStep === null
      ? []
      : [
          db
            .prepare(
              `INSERT OR IGNORE INTO workflow_steps
               (seq, tenant_id, run_id, message_id, call_type, body_base64, created_at_ms)
               VALUES (?, ?, ?, ?, ?, ?, ?)`,
            )
            .bind(
              timeoutStep.seq,
              waiter.tenant_id,
              waiter.run_id,
              waiter.timeout_message_id,
              timeoutStep.call_type,
              timeoutStep.body_base64,
              timeoutStep.created_at_ms,
            ),
        ]),
    insertWaiter(db, "INSERT OR IGNORE", waiter),
  ]);
}
