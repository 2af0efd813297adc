// State changes of many runs in one statement, for the per-run hot paths (dispatch, claims,
// outcomes): a per-run moveRun is one UPDATE, one row object and one history string per run, and
// over a 20,000-run burst those were most of the shard's SQLite time. Each appends to the run's
// history the same event moveRun would (same keys, same order) and checks the same transition.
import { type RunState, sqlInList, transition } from "../../src/core/run-state";

/** One run moved to ACQUIRED: its fence, the job version stamped on it, its lease, why. */
export interface Acquisition {
  runId: string;
  fence: number;
  jobVersion: number;
  dueAtMs: number;
  reason: string;
}

/**
 * SCHEDULED -> ACQUIRED for every run given, in one statement; a run no longer SCHEDULED is left
 * alone. A run whose instant is still to come (sent ahead, ./ahead.ts) stays clean: history learns of
 * it once it is claimed. Returns the ids moved.
 */
export function acquireRuns(sql: SqlStorage, runs: readonly Acquisition[], nowMs: number): string[] {
  if (runs.length === 0) return [];
  return batchMove(
    sql,
    ["SCHEDULED"],
    "ACQUIRED",
    nowMs,
    `fence = batch.fence, job_version = batch.job_version, due_at_ms = batch.due_at_ms,
     dispatch_count = dispatch_count + 1`,
    runs.map((run) => [run.runId, run.reason, run.fence, run.jobVersion, run.dueAtMs]),
    ["fence", "job_version", "due_at_ms"],
  );
}

/** One run a consumer claimed: its RUNNING lease and the lateness of the attempt. */
export interface ClaimStart {
  runId: string;
  dueAtMs: number;
  latenessMs: number;
}

export const CLAIM_REASON = "claimed by a consumer";

/**
 * ACQUIRED or DISPATCHED -> RUNNING for every claimed run, in one statement (a claim may land
 * before the DISPATCHED bookkeeping). The caller has already decided each claim on the rows it read.
 */
export function startClaimedRuns(sql: SqlStorage, runs: readonly ClaimStart[], nowMs: number): string[] {
  if (runs.length === 0) return [];
  return batchMove(
    sql,
    ["ACQUIRED", "DISPATCHED"],
    "RUNNING",
    nowMs,
    `due_at_ms = batch.due_at_ms, lateness_ms = COALESCE(runs.lateness_ms, batch.lateness_ms),
     accepted_at_ms = NULL, heartbeat_at_ms = NULL`,
    runs.map((run) => [run.runId, CLAIM_REASON, run.dueAtMs, run.latenessMs]),
    ["due_at_ms", "lateness_ms"],
  );
}

/** One run whose attempt succeeded, as the target answered. */
export interface Success {
  runId: string;
  reason: string;
  targetStatus: number | null;
  durationMs: number | null;
}

/**
 * RUNNING -> SUCCEEDED for every run given, in one statement: the same columns and event as
 * applySuccess (execution.ts) writes for one run, which still handles every run that needs more
 * than the move (a failure streak to end, buffered runs to release).
 */
export function succeedRuns(sql: SqlStorage, runs: readonly Success[], nowMs: number): string[] {
  if (runs.length === 0) return [];
  return batchMove(
    sql,
    ["RUNNING"],
    "SUCCEEDED",
    nowMs,
    `due_at_ms = NULL, error = NULL, next_attempt_at_ms = NULL, target_status = batch.target_status,
     duration_ms = batch.duration_ms`,
    runs.map((run) => [run.runId, run.reason, run.targetStatus, run.durationMs]),
    ["target_status", "duration_ms"],
    ", 'target_status', batch.target_status",
  );
}

/**
 * The one UPDATE behind every batch move. `rows` are `[run_id, reason, ...columns]`, read back as
 * `batch.<column>` in `set`; the event's fence is the run's fence after the move.
 */
function batchMove(
  sql: SqlStorage,
  from: readonly RunState[],
  to: RunState,
  nowMs: number,
  set: string,
  rows: readonly (string | number | null)[][],
  columns: readonly string[],
  eventExtra = "",
): string[] {
  for (const state of from) transition(state, to);
  const extracted = columns.map((column, index) => `json_extract(value, '$[${index + 2}]') AS ${column}`);
  const fence = columns.includes("fence") ? "batch.fence" : "runs.fence";
  return sql
    .exec<{ run_id: string }>(
      `UPDATE runs SET state = ?1, ${set},
         events_json = substr(events_json, 1, length(events_json) - 1)
           || CASE WHEN length(events_json) > 2 THEN ',' ELSE '' END
           || json_object('state', ?1, 'at_ms', ?2, 'reason', batch.reason, 'attempt', runs.attempt, 'fence', ${fence}${eventExtra})
           || ']',
         updated_at_ms = ?2, rev = rev + 1,
         dirty = CASE WHEN runs.fire_at_ms > ?2 THEN 0 ELSE 1 END
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS reason, ${extracted.join(", ")}
             FROM json_each(?3)) AS batch
       WHERE runs.run_id = batch.id AND runs.state IN ${sqlInList(from)}
       RETURNING runs.run_id`,
      to,
      nowMs,
      JSON.stringify(rows),
    )
    .toArray()
    .map((row) => row.run_id);
}
