// The runs table's timers and upkeep outside a state change (state changes: ./run-store.ts,
// moveRun): a run held at a flow gate and its hold ended early, a terminal run's leftover timer,
// a run sent ahead whose instant was taken back, history marked written, settled runs pruned.
// Every statement that writes `runs` lives in this folder (the structure check holds it to that).
import { sqlInList, TERMINAL_STATES } from "../../../src/core/run-state";

/** How a run held at a flow gate is recorded: its next ask, the gate, why, and what held it. */
export interface GateHold {
  runId: string;
  dueAtMs: number;
  gate: string;
  reason: string;
  heldBy: "tenant_limits" | "flow_control" | "host_throttled";
}

/**
 * A refused run waits for its next ask, noting the gate it waits on (so the gate can wake it). Its
 * first wait on this gate is a history event (once, not per ask), and how long the gate holds it
 * past its fire time counts in its lateness split (src/core/run-waits.ts).
 */
export function holdAtGate(sql: SqlStorage, hold: GateHold, nowMs: number): void {
  sql.exec(HOLD_SQL, hold.dueAtMs, hold.gate, hold.runId, hold.reason, hold.heldBy, nowMs);
}

const HOLD_SQL = `UPDATE runs SET due_at_ms = ?1, flow_gate = ?2,
    held_ms = CASE WHEN lateness_ms IS NULL THEN MAX(COALESCE(held_ms, 0), ?1 - fire_at_ms) ELSE held_ms END,
    held_by = CASE WHEN lateness_ms IS NULL AND ?1 - fire_at_ms > COALESCE(held_ms, 0) THEN ?5 ELSE held_by END,
    events_json = CASE WHEN flow_gate IS ?2 THEN events_json ELSE
      substr(events_json, 1, length(events_json) - 1) || CASE WHEN length(events_json) > 2 THEN ',' ELSE '' END
        || json_object('state', state, 'at_ms', ?6, 'reason', ?4, 'attempt', attempt) || ']' END,
    dirty = CASE WHEN flow_gate IS ?2 THEN dirty ELSE 1 END,
    rev = rev + 1
  WHERE run_id = ?3 AND state = 'SCHEDULED'`;

/** The gate has permits again: up to `count` of the runs waiting on it ask now. Returns how many. */
export function endGateHolds(sql: SqlStorage, gate: string, count: number, nowMs: number): number {
  return sql.exec(
    // The hold ends now, sooner than its planned ask: the run's lateness split counts it so.
    `UPDATE runs SET due_at_ms = ?1,
       held_ms = CASE WHEN lateness_ms IS NULL THEN MAX(0, ?1 - fire_at_ms) ELSE held_ms END
     WHERE run_id IN (
       SELECT run_id FROM runs WHERE flow_gate = ?2 AND state = 'SCHEDULED' AND due_at_ms > ?1
       ORDER BY due_at_ms LIMIT ?3)`,
    nowMs,
    gate,
    count,
  ).rowsWritten;
}

/**
 * Runs waiting at `gate` here (as endGateHolds finds them), other than `asking`: the rest of this
 * shard's entry in the gate's wait list when those ask (runs_flow_gate index).
 */
export function waitingAtGate(
  sql: SqlStorage,
  gate: string,
  asking: readonly { run_id: string }[],
  nowMs: number,
): number {
  return sql
    .exec<{ n: number }>(
      `SELECT COUNT(*) AS n FROM runs WHERE flow_gate = ?1 AND state = 'SCHEDULED' AND due_at_ms > ?2
         AND run_id NOT IN (SELECT value FROM json_each(?3))`,
      gate,
      nowMs,
      JSON.stringify(asking.map((run) => run.run_id)),
    )
    .one().n;
}

/** A terminal run with a timer left over: cleared so it never comes back. */
export function clearTimer(sql: SqlStorage, runId: string): void {
  sql.exec("UPDATE runs SET due_at_ms = NULL WHERE run_id = ?", runId);
}

/**
 * Deletes the run a job queued ahead for an instant that has not come yet (see
 * ../dispatch/ahead.ts, dropAheadRuns). Returns how many were deleted (0 or 1).
 */
export function deleteUnfiredAheadRun(sql: SqlStorage, jobId: string, nowMs: number): number {
  return sql.exec(
    `DELETE FROM runs WHERE job_id = ?1 AND kind = 'schedule' AND attempt = 1 AND fire_at_ms > ?2
       AND state IN ('SCHEDULED', 'ACQUIRED', 'DISPATCHED')
       AND scheduled_at_ms = (SELECT ahead_scheduled_ms FROM jobs WHERE job_id = ?1)`,
    jobId,
    nowMs,
  ).rowsWritten;
}

/** These runs' changes are in their history records now. */
export function markRecorded(sql: SqlStorage, runIds: readonly string[]): void {
  sql.exec(
    "UPDATE runs SET dirty = 0 WHERE run_id IN (SELECT value FROM json_each(?))",
    JSON.stringify(runIds),
  );
}

/**
 * Terminal runs whose history record is written, last changed before `beforeMs`, leave the
 * wheel's table (at most `limit` a call). Returns how many.
 */
export function pruneSettledRuns(sql: SqlStorage, beforeMs: number, limit: number): number {
  return sql.exec(
    `DELETE FROM runs WHERE run_id IN (
       SELECT run_id FROM runs WHERE due_at_ms IS NULL AND waiting IS NULL AND dirty = 0 AND dlq_pending = 0
         AND state IN ${sqlInList(TERMINAL_STATES)} AND updated_at_ms < ? LIMIT ?)`,
    beforeMs,
    limit,
  ).rowsWritten;
}
