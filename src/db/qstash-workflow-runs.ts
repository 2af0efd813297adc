// D1 statements of Upstash Workflow runs (migrations/0035_workflow_runs.sql): the run with its
// first message's settings, and the ordered list of its step messages.

export type WorkflowRunState = "RUN_STARTED" | "RUN_SUCCESS" | "RUN_FAILED" | "RUN_CANCELED";

export interface WorkflowRunRow {
  tenant_id: string;
  run_id: string;
  url: string;
  state: WorkflowRunState;
  /** JSON: the first message's setting headers (lower-case name -> value). */
  settings: string;
  /** The value the run's last step returned (the SDK's end-of-run DELETE body), when it ended. */
  result: string | null;
  created_at_ms: number;
  updated_at_ms: number;
}

export interface WorkflowStepRow {
  seq: number;
  tenant_id: string;
  run_id: string;
  message_id: string;
  call_type: string;
  body_base64: string;
  created_at_ms: number;
}

export interface NewWorkflowStep {
  tenantId: string;
  runId: string;
  messageId: string;
  callType: string;
  bodyBase64: string;
}

export interface NewWorkflowRun {
  tenantId: string;
  runId: string;
  url: string;
  settings: Record<string, string>;
}

/**
 * Stores new runs and appends steps in one D1 batch, before their messages are stored: a step
 * that is listed but whose message failed to store is a result the SDK did compute.
 */
export async function recordWorkflowSteps(
  db: D1Database,
  runs: readonly NewWorkflowRun[],
  steps: readonly NewWorkflowStep[],
  nowMs: number,
): Promise<void> {
  const statements = [
    ...runs.map((run) =>
      db
        .prepare(
          `INSERT INTO workflow_runs (tenant_id, run_id, url, state, settings, result, created_at_ms, updated_at_ms)
           VALUES (?1, ?2, ?3, 'RUN_STARTED', ?4, NULL, ?5, ?5) ON CONFLICT (tenant_id, run_id) DO NOTHING`,
        )
        .bind(run.tenantId, run.runId, run.url, JSON.stringify(run.settings), nowMs),
    ),
    ...steps.map((step) =>
      db
        .prepare(
          `INSERT INTO workflow_steps (tenant_id, run_id, message_id, call_type, body_base64, created_at_ms)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
        )
        .bind(step.tenantId, step.runId, step.messageId, step.callType, step.bodyBase64, nowMs),
    ),
  ];
  if (statements.length > 0) await db.batch(statements);
}

export async function findWorkflowRun(
  db: D1Database,
  tenantId: string,
  runId: string,
): Promise<WorkflowRunRow | null> {
  return db
    .prepare("SELECT * FROM workflow_runs WHERE tenant_id = ? AND run_id = ?")
    .bind(tenantId, runId)
    .first<WorkflowRunRow>();
}

/** The run's step messages in the order they were stored (at most `limit`). */
export async function listWorkflowSteps(
  db: D1Database,
  tenantId: string,
  runId: string,
  limit = 1_000,
): Promise<WorkflowStepRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM workflow_steps WHERE tenant_id = ? AND run_id = ? ORDER BY seq LIMIT ?")
    .bind(tenantId, runId, limit)
    .all<WorkflowStepRow>();
  return results;
}

/** One step message of the run, or null when it is not listed. */
export async function findWorkflowStep(
  db: D1Database,
  tenantId: string,
  runId: string,
  messageId: string,
): Promise<WorkflowStepRow | null> {
  return db
    .prepare("SELECT * FROM workflow_steps WHERE tenant_id = ? AND run_id = ? AND message_id = ?")
    .bind(tenantId, runId, messageId)
    .first<WorkflowStepRow>();
}

/** Ends a started run; false when it was not started (unknown, or already ended). */
export async function endWorkflowRun(
  db: D1Database,
  tenantId: string,
  runId: string,
  end: { state: Exclude<WorkflowRunState, "RUN_STARTED">; result: string | null },
  nowMs: number,
): Promise<boolean> {
  const outcome = await db
    .prepare(
      `UPDATE workflow_runs SET state = ?3, result = ?4, updated_at_ms = ?5
       WHERE tenant_id = ?1 AND run_id = ?2 AND state = 'RUN_STARTED'`,
    )
    .bind(tenantId, runId, end.state, end.result, nowMs)
    .run();
  return outcome.meta.changes > 0;
}

/** The tenant's runs, newest first, created before `beforeMs` when given. */
export async function listWorkflowRuns(
  db: D1Database,
  tenantId: string,
  options: { beforeMs?: number; limit: number },
): Promise<WorkflowRunRow[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM workflow_runs WHERE tenant_id = ?1 AND created_at_ms < ?2
       ORDER BY created_at_ms DESC LIMIT ?3`,
    )
    .bind(tenantId, options.beforeMs ?? Number.MAX_SAFE_INTEGER, options.limit)
    .all<WorkflowRunRow>();
  return results;
}

/** Removes one step message from the run's list (a wait's timeout that a notify overtook). */
export async function deleteWorkflowStep(
  db: D1Database,
  tenantId: string,
  runId: string,
  messageId: string,
): Promise<void> {
  await db
    .prepare("DELETE FROM workflow_steps WHERE tenant_id = ? AND run_id = ? AND message_id = ?")
    .bind(tenantId, runId, messageId)
    .run();
}

/** The deadline of the wait whose timeout message this is, or null when none is waiting. */
export async function listWaitDeadlines(
  db: D1Database,
  tenantId: string,
  runId: string,
): Promise<Map<string, number>> {
  const { results } = await db
    .prepare(
      "SELECT timeout_message_id, deadline_ms FROM workflow_waiters WHERE tenant_id = ? AND run_id = ?",
    )
    .bind(tenantId, runId)
    .all<{ timeout_message_id: string; deadline_ms: number }>();
  return new Map(results.map((row) => [row.timeout_message_id, row.deadline_ms]));
}

/** Starts a failed run again (a resume from its DLQ entry); false when it had not failed. */
export async function reopenFailedWorkflowRun(
  db: D1Database,
  tenantId: string,
  runId: string,
  nowMs: number,
): Promise<boolean> {
  const outcome = await db
    .prepare(
      `UPDATE workflow_runs SET state = 'RUN_STARTED', result = NULL, updated_at_ms = ?3
       WHERE tenant_id = ?1 AND run_id = ?2 AND state = 'RUN_FAILED'`,
    )
    .bind(tenantId, runId, nowMs)
    .run();
  return outcome.meta.changes > 0;
}

/**
 * The run's first dead letter not redriven (the one that failed it, in the order they were
 * recorded), among the dead letters of its step messages; null when it has none.
 */
export async function firstOpenDeadLetterOfRun(
  db: D1Database,
  tenantId: string,
  runId: string,
): Promise<string | null> {
  const row = await db
    .prepare(
      `SELECT d.id FROM workflow_steps s
       JOIN dead_letters d ON d.tenant_id = s.tenant_id AND d.job_id = s.message_id
       WHERE s.tenant_id = ?1 AND s.run_id = ?2 AND d.redriven_at_ms IS NULL
       ORDER BY d.created_at_ms, d.id LIMIT 1`,
    )
    .bind(tenantId, runId)
    .first<{ id: string }>();
  return row?.id ?? null;
}
