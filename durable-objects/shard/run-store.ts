// A shard's runs: every state change goes through moveRun, which checks the transition table,
// appends the event to the run's history and marks the run for the next D1 history flush.

import { runIdFor } from "../../src/core/run-id";
import {
  PENDING_STATES,
  type RunState,
  sqlInList,
  transition,
  UNFINISHED_STATES,
} from "../../src/core/run-state";

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
  events_json: string;
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
  /** What the target reported with its completion (JSON, at most 4 KB). */
  result_json: string | null;
};

/**
 * Whether a paused job holds this run back. A pause governs the job's schedule: its scheduled,
 * triggered and backfilled runs wait no further; a run an operator retried or redrove by hand
 * (the natural fix loop: pause_after_failures, fix the endpoint, redrive, resume) still goes.
 */
export function heldByPause(jobStatus: string, run: Pick<RunRow, "manual">): boolean {
  return jobStatus === "PAUSED" && run.manual !== 1;
}

// Deterministic: one run per (job, instant), so a re-fired tick collapses onto the same row.
export { runIdFor } from "../../src/core/run-id";

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

/** Inserts a run unless one exists for the same (job, instant). Returns the run id, or null. */
export function insertRun(sql: SqlStorage, run: NewRun): string | null {
  const runId = runIdFor(run.jobId, run.scheduledAtMs);
  const events: RunEvent[] = [{ state: run.state, at_ms: run.nowMs, reason: run.reason, attempt: 1 }];
  const cursor = sql.exec(
    `INSERT OR IGNORE INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
       max_attempts, job_version, due_at_ms, waiting, events_json, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
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

export function getRun(sql: SqlStorage, runId: string): RunRow | null {
  return sql.exec<RunRow>("SELECT * FROM runs WHERE run_id = ?", runId).toArray()[0] ?? null;
}

/** Many runs in one statement, by id. */
export function getRuns(sql: SqlStorage, runIds: readonly string[]): Map<string, RunRow> {
  const runs = new Map<string, RunRow>();
  if (runIds.length === 0) return runs;
  const rows = sql
    .exec<RunRow>(
      "SELECT * FROM runs WHERE run_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(runIds),
    )
    .toArray();
  for (const row of rows) runs.set(row.run_id, row);
  return runs;
}

/** Columns a state change may set besides the state itself. */
export type RunPatch = Partial<
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
    | "result_json"
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
  Object.assign(run, patch);
  const event: RunEvent = { state: to, at_ms: nowMs, reason, attempt: run.attempt };
  if (run.fence !== null) event.fence = run.fence;
  if (patch.target_status !== undefined) event.target_status = patch.target_status;
  run.state = to;
  // Append in place: parsing and re-serializing the whole history on every transition was a
  // visible share of the tick's CPU.
  run.events_json = `${run.events_json.slice(0, -1)}${run.events_json.length > 2 ? "," : ""}${JSON.stringify(event)}]`;
  run.updated_at_ms = nowMs;
  run.rev += 1;
  run.dirty = 1;
  writeRun(sql, run, Object.keys(patch));
}

/**
 * Moves many runs `from` → `to` in one statement, appending the same event to each: only runs
 * still in `from` under the given fence move (a claim may have raced ahead). For the hot path,
 * where a per-run moveRun was one statement and one row object per run. Returns the ids moved.
 */
export function moveRunsAtFence(
  sql: SqlStorage,
  runs: readonly { runId: string; fence: number }[],
  from: RunState,
  to: RunState,
  reason: string,
  nowMs: number,
): string[] {
  if (runs.length === 0) return [];
  transition(from, to);
  // The event is built like moveRun's (same keys, same order) so both kinds of append read alike.
  return sql
    .exec<{ run_id: string }>(
      `UPDATE runs SET state = ?1,
         events_json = substr(events_json, 1, length(events_json) - 1)
           || CASE WHEN length(events_json) > 2 THEN ',' ELSE '' END
           || json_object('state', ?1, 'at_ms', ?2, 'reason', ?3, 'attempt', runs.attempt, 'fence', runs.fence)
           || ']',
         updated_at_ms = ?2, rev = rev + 1, dirty = 1
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS sent_fence
             FROM json_each(?4)) AS sent
       WHERE runs.run_id = sent.id AND runs.fence = sent.sent_fence AND runs.state = ?5
       RETURNING runs.run_id`,
      to,
      nowMs,
      reason,
      JSON.stringify(runs.map((run) => [run.runId, run.fence])),
      from,
    )
    .toArray()
    .map((row) => row.run_id);
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
  run.events_json = `${run.events_json.slice(0, -1)}${run.events_json.length > 2 ? "," : ""}${JSON.stringify(event)}]`;
  patchRun(sql, run, nowMs, patch);
}

/** Updates columns without a state change (e.g. re-arming a lease); still flushed to D1. */
export function patchRun(sql: SqlStorage, run: RunRow, nowMs: number, patch: RunPatch): void {
  Object.assign(run, patch);
  run.updated_at_ms = nowMs;
  run.rev += 1;
  run.dirty = 1;
  writeRun(sql, run, Object.keys(patch));
}

function writeRun(sql: SqlStorage, run: RunRow, patchedColumns: string[]): void {
  const columns = ["state", "events_json", "updated_at_ms", "rev", "dirty", ...patchedColumns];
  for (const column of patchedColumns) {
    if (!PATCHABLE.has(column)) throw new Error(`run column ${column} is not patchable`);
  }
  const values = columns.map((column) => run[column as keyof RunRow]);
  sql.exec(
    `UPDATE runs SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE run_id = ?`,
    ...values,
    run.run_id,
  );
}

/** Runs of a job that still need the wheel (not terminal, not running). */
export function pendingRunsOfJob(sql: SqlStorage, jobId: string): RunRow[] {
  return sql
    .exec<RunRow>(`SELECT * FROM runs WHERE job_id = ? AND state IN ${sqlInList(PENDING_STATES)}`, jobId)
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
