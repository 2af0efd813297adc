// A shard's runs: every state change goes through moveRun, which checks the transition table,
// appends the event to the run's history and marks the run for the next write-behind into its history record.

import { DEFAULT_JOB_PRIORITY } from "../../../src/core/job-spec";
import { runIdFor } from "../../../src/core/run-id";
import {
  PENDING_STATES,
  type RunState,
  sqlInList,
  transition,
  UNFINISHED_STATES,
} from "../../../src/core/run-state";
import { instantTaken } from "./settled-instants";

export type RunKind = "schedule" | "trigger" | "backfill" | "catch_up";

export interface RunEvent {
  state: RunState;
  at_ms: number;
  reason: string;
  attempt: number;
  fence?: number;
  target_status?: number | null;
}

export type RunRow = {
  run_id: string;
  job_id: string;
  tenant_id: string;
  kind: RunKind;
  scheduled_at_ms: number;
  fire_at_ms: number;
  state: RunState;
  attempt: number;
  max_attempts: number;
  fence: number | null;
  job_version: number;
  due_at_ms: number | null;
  waiting: "overlap" | null;
  dispatch_count: number;
  target_status: number | null;
  error: string | null;
  lateness_ms: number | null;
  duration_ms: number | null;
  next_attempt_at_ms: number | null;
  created_at_ms: number;
  updated_at_ms: number;
  dirty: number;
  rev: number;
  dlq_pending: number;
  dlq_reason: string | null;
  /** Failed sends of this run's dead letter, and when it is sent again (see dead-letters.ts). */
  dlq_send_failures: number;
  dlq_retry_at_ms: number | null;
  /** 1: an operator retried or redrove it; it is dispatched even while its job is paused. */
  manual: number;
  /** Set while a long-running target works on the attempt it accepted (cleared per attempt). */
  accepted_at_ms: number | null;
  heartbeat_at_ms: number | null;
};

/**
 * The columns of a RunRow: every column but the run's history (`events_json`, appended to in SQL
 * by every move and read only by history flushes and views) and the target's reported result
 * (`result_json`, written only). Reading them with every claimed and reported run was the largest
 * share of the shard's CPU per run in a burst: a row's history grows with each move.
 */
export const RUN_COLUMNS = [
  "run_id",
  "job_id",
  "tenant_id",
  "kind",
  "scheduled_at_ms",
  "fire_at_ms",
  "state",
  "attempt",
  "max_attempts",
  "fence",
  "job_version",
  "due_at_ms",
  "waiting",
  "dispatch_count",
  "target_status",
  "error",
  "lateness_ms",
  "duration_ms",
  "next_attempt_at_ms",
  "created_at_ms",
  "updated_at_ms",
  "dirty",
  "rev",
  "dlq_pending",
  "dlq_reason",
  "dlq_send_failures",
  "dlq_retry_at_ms",
  "manual",
  "accepted_at_ms",
  "heartbeat_at_ms",
].join(", ");

/** A run's history so far (the events every move appended), oldest first. */
export function runEvents(sql: SqlStorage, runId: string): RunEvent[] {
  const row = sql
    .exec<{ events_json: string }>("SELECT events_json FROM runs WHERE run_id = ?", runId)
    .toArray()[0];
  return row === undefined ? [] : (JSON.parse(row.events_json) as RunEvent[]);
}

/**
 * Whether a paused job holds this run back. A pause governs the job's schedule: its scheduled,
 * triggered and backfilled runs wait no further; a run an operator retried or redrove by hand
 * (the natural fix loop: pause_after_failures, fix the endpoint, redrive, resume) still goes.
 */
export function heldByPause(jobStatus: string, run: Pick<RunRow, "manual">): boolean {
  return jobStatus === "PAUSED" && run.manual !== 1;
}

// Deterministic: one run per (job, instant), so a re-fired tick collapses onto the same row.
export { runIdFor } from "../../../src/core/run-id";

export interface NewRun {
  jobId: string;
  tenantId: string;
  kind: RunKind;
  scheduledAtMs: number;
  fireAtMs: number;
  maxAttempts: number;
  jobVersion: number;
  state: "SCHEDULED" | "SKIPPED";
  dueAtMs: number | null;
  waiting: "overlap" | null;
  reason: string;
  nowMs: number;
}

/**
 * Inserts a run unless the same (job, instant) has one: a live row, or a history record (a run that
 * settled and left `runs`, ./settle.ts). Returns the run id, or null.
 */
export function insertRun(sql: SqlStorage, run: NewRun): string | null {
  const runId = runIdFor(run.jobId, run.scheduledAtMs);
  const events: RunEvent[] = [{ state: run.state, at_ms: run.nowMs, reason: run.reason, attempt: 1 }];
  const cursor = sql.exec(
    `INSERT OR IGNORE INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
       max_attempts, job_version, due_at_ms, waiting, events_json, created_at_ms, updated_at_ms, priority)
     SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?,
       COALESCE((SELECT json_extract(spec_json, '$.priority') FROM jobs WHERE job_id = ?2), ${DEFAULT_JOB_PRIORITY})
     WHERE NOT EXISTS (SELECT 1 FROM run_history WHERE job_id = ?2 AND scheduled_at_ms = ?5)`,
    runId,
    run.jobId,
    run.tenantId,
    run.kind,
    run.scheduledAtMs,
    run.fireAtMs,
    run.state,
    run.maxAttempts,
    run.jobVersion,
    run.dueAtMs,
    run.waiting,
    JSON.stringify(events),
    run.nowMs,
    run.nowMs,
  );
  return cursor.rowsWritten > 0 ? runId : null;
}

/**
 * A trigger's instant is its idempotency key: the first from `nowMs` no run of the job has, live
 * or settled.
 */
export function freeTriggerInstant(sql: SqlStorage, jobId: string, nowMs: number): number {
  let scheduledAtMs = nowMs;
  while (instantTaken(sql, jobId, scheduledAtMs)) scheduledAtMs += 1;
  return scheduledAtMs;
}

export function getRun(sql: SqlStorage, runId: string): RunRow | null {
  return sql.exec<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ?`, runId).toArray()[0] ?? null;
}

/** Many runs in one statement, by id. */
export function getRuns(sql: SqlStorage, runIds: readonly string[]): Map<string, RunRow> {
  const runs = new Map<string, RunRow>();
  if (runIds.length === 0) return runs;
  const rows = sql
    .exec<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE run_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(runIds),
    )
    .toArray();
  for (const row of rows) runs.set(row.run_id, row);
  return runs;
}

/** Columns a state change may set besides the state itself. */
export type RunPatch = { result_json?: string | null } & Partial<
  Pick<
    RunRow,
    | "attempt"
    | "max_attempts"
    | "fence"
    | "job_version"
    | "due_at_ms"
    | "waiting"
    | "dispatch_count"
    | "target_status"
    | "error"
    | "lateness_ms"
    | "duration_ms"
    | "next_attempt_at_ms"
    | "dlq_pending"
    | "dlq_reason"
    | "dlq_send_failures"
    | "dlq_retry_at_ms"
    | "manual"
    | "accepted_at_ms"
    | "heartbeat_at_ms"
  >
>;

const PATCHABLE = new Set<string>([
  "attempt",
  "max_attempts",
  "fence",
  "job_version",
  "due_at_ms",
  "waiting",
  "dispatch_count",
  "target_status",
  "error",
  "lateness_ms",
  "duration_ms",
  "next_attempt_at_ms",
  "dlq_pending",
  "dlq_reason",
  "dlq_send_failures",
  "dlq_retry_at_ms",
  "manual",
  "accepted_at_ms",
  "heartbeat_at_ms",
  "result_json",
]);

/**
 * Moves a run to `to` (throws on an illegal transition: that is a bug), records the event with
 * its reason, applies `patch`, and mutates `run` to match what was written.
 */
export function moveRun(
  sql: SqlStorage,
  run: RunRow,
  to: RunState,
  reason: string,
  nowMs: number,
  patch: RunPatch = {},
): void {
  transition(run.state, to);
  const { result_json: _result, ...rowPatch } = patch;
  Object.assign(run, rowPatch);
  const event: RunEvent = { state: to, at_ms: nowMs, reason, attempt: run.attempt };
  if (run.fence !== null) event.fence = run.fence;
  if (patch.target_status !== undefined) event.target_status = patch.target_status;
  run.state = to;
  updateRun(sql, run, nowMs, patch, event);
}

/** Records an event that changes no state (a long-running target accepted the call), plus `patch`. */
export function noteRun(
  sql: SqlStorage,
  run: RunRow,
  reason: string,
  nowMs: number,
  patch: RunPatch = {},
): void {
  const event: RunEvent = { state: run.state, at_ms: nowMs, reason, attempt: run.attempt };
  if (run.fence !== null) event.fence = run.fence;
  if (patch.target_status !== undefined) event.target_status = patch.target_status;
  updateRun(sql, run, nowMs, patch, event);
}

/** Updates columns without a state change (e.g. re-arming a lease); still flushed to history. */
export function patchRun(sql: SqlStorage, run: RunRow, nowMs: number, patch: RunPatch): void {
  updateRun(sql, run, nowMs, patch, null);
}

function updateRun(
  sql: SqlStorage,
  run: RunRow,
  nowMs: number,
  patch: RunPatch,
  event: RunEvent | null,
): void {
  const { result_json: _result, ...rowPatch } = patch;
  Object.assign(run, rowPatch);
  run.updated_at_ms = nowMs;
  run.rev += 1;
  run.dirty = 1;
  writeRun(sql, run, patch, event);
}

/**
 * Writes the run's state, bookkeeping and patched columns; `event` (when given) is appended to
 * the run's history in SQL, so no caller needs the history read into memory.
 */
function writeRun(sql: SqlStorage, run: RunRow, patch: RunPatch, event: RunEvent | null): void {
  const patchedColumns = Object.keys(patch);
  for (const column of patchedColumns) {
    if (!PATCHABLE.has(column)) throw new Error(`run column ${column} is not patchable`);
  }
  const columns = ["state", "updated_at_ms", "rev", "dirty", ...patchedColumns];
  const values = columns.map((column) =>
    column === "result_json" ? (patch.result_json ?? null) : run[column as keyof RunRow],
  );
  const assignments = columns.map((column) => `${column} = ?`);
  if (event !== null) {
    assignments.push(
      `events_json = substr(events_json, 1, length(events_json) - 1)
         || CASE WHEN length(events_json) > 2 THEN ',' ELSE '' END || ? || ']'`,
    );
    values.push(JSON.stringify(event));
  }
  sql.exec(`UPDATE runs SET ${assignments.join(", ")} WHERE run_id = ?`, ...values, run.run_id);
}

/** Runs of a job that still need the wheel (not terminal, not running). */
export function pendingRunsOfJob(sql: SqlStorage, jobId: string): RunRow[] {
  return sql
    .exec<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE job_id = ? AND state IN ${sqlInList(PENDING_STATES)}`,
      jobId,
    )
    .toArray();
}

export function countInFlight(sql: SqlStorage, jobId: string): { inFlight: number; buffered: number } {
  const row = sql
    .exec<{ in_flight: number; buffered: number }>(
      `SELECT
         SUM(CASE WHEN waiting IS NULL AND state IN ${sqlInList(UNFINISHED_STATES)} THEN 1 ELSE 0 END) AS in_flight,
         SUM(CASE WHEN waiting = 'overlap' THEN 1 ELSE 0 END) AS buffered
       FROM runs WHERE job_id = ? AND state IN ${sqlInList(UNFINISHED_STATES)}`,
      jobId,
    )
    .one();
  return { inFlight: row.in_flight ?? 0, buffered: row.buffered ?? 0 };
}

/** Reserves `count` consecutive fences in one statement; returns the first. */
export function nextFences(sql: SqlStorage, count: number): number {
  const last = sql
    .exec<{ value: number }>(
      "UPDATE meta SET value = value + ? WHERE key = 'fence_seq' RETURNING value",
      count,
    )
    .one().value;
  return last - count + 1;
}
