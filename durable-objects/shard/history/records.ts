// A shard's run history: one compact record per run in run_history (schema v11), kept
// HISTORY_RETENTION_DAYS. A success writes it with its outcome (recordSucceeded, ../runs/settle.ts);
// any other change is copied from the run's row by the write-behind (recordHistory).
// The shard already owns the run, so history costs no request and no other database: a write is
// a local upsert in the same SQLite, and reads are routed to the owning shard (src/shard/client.ts).
import { sqlInList, TERMINAL_STATES } from "../../../src/core/run-state";
import { markRecorded } from "../runs/run-timers";

/** The columns of a history record (each also a column of `runs`). */
export const HISTORY_COLUMNS = [
  "job_id",
  "scheduled_at_ms",
  "tenant_id",
  "kind",
  "state",
  "attempt",
  "max_attempts",
  "fence",
  "job_version",
  "target_status",
  "error",
  "lateness_ms",
  "duration_ms",
  "next_attempt_at_ms",
  "events_json",
  "created_at_ms",
  "updated_at_ms",
  "accepted_at_ms",
  "heartbeat_at_ms",
  "result_json",
  "held_ms",
  "held_by",
  "triggers_folded",
] as const;

/** The history columns as a select list: `runs` has every one of them (the copy below reads them). */
export const HISTORY_COLUMN_LIST = HISTORY_COLUMNS.join(", ");

const KEY_COLUMNS = new Set<string>(["job_id", "scheduled_at_ms", "tenant_id", "kind", "created_at_ms"]);

/** Everything but the key and what never changes is taken from the newer write. */
const UPDATE_SET = HISTORY_COLUMNS.filter((column) => !KEY_COLUMNS.has(column))
  .map((column) => `${column} = excluded.${column}`)
  .join(", ");

const COPY_RUNS_SQL = `
INSERT INTO run_history (${HISTORY_COLUMNS.join(", ")})
SELECT ${HISTORY_COLUMNS.join(", ")} FROM runs WHERE run_id IN (SELECT value FROM json_each(?))
ON CONFLICT (job_id, scheduled_at_ms) DO UPDATE SET ${UPDATE_SET}
WHERE excluded.updated_at_ms >= run_history.updated_at_ms`;

/**
 * Copies the runs' current rows into their history records (inserted or brought up to date). A
 * row older than the record (by updated_at_ms) changes nothing, so a run never moves backwards.
 */
export function recordHistory(sql: SqlStorage, runIds: readonly string[]): number {
  if (runIds.length === 0) return 0;
  return sql.exec(COPY_RUNS_SQL, JSON.stringify(runIds)).rowsWritten;
}

/**
 * A run that starts waiting in the wheel (SCHEDULED, a flow gate refused it) is written at once,
 * so its history shows why it waits: the flush writes a SCHEDULED run only when it moves on. A
 * run whose instant is still to come (sent ahead, ./ahead.ts) stays unwritten until it is due.
 */
export function recordWaitingHistory(sql: SqlStorage, runIds: readonly string[], nowMs: number): void {
  if (runIds.length === 0) return;
  const waiting = sql
    .exec<{ run_id: string }>(
      `SELECT run_id FROM runs WHERE run_id IN (SELECT value FROM json_each(?))
       AND dirty = 1 AND state = 'SCHEDULED' AND fire_at_ms <= ?`,
      JSON.stringify(runIds),
      nowMs,
    )
    .toArray()
    .map((row) => row.run_id);
  if (waiting.length === 0) return;
  recordHistory(sql, waiting);
  markRecorded(sql, waiting);
}

/** What a success writes over the run's row (every other column is the row's). */
const SUCCEEDED_COLUMNS: Partial<Record<(typeof HISTORY_COLUMNS)[number], string>> = {
  state: "'SUCCEEDED'",
  target_status: "batch.target_status",
  error: "NULL",
  duration_ms: "batch.duration_ms",
  next_attempt_at_ms: "NULL",
  // The SUCCEEDED event, as the move of a run in one statement appends it (../runs/run-batches.ts).
  events_json: `substr(runs.events_json, 1, length(runs.events_json) - 1)
    || CASE WHEN length(runs.events_json) > 2 THEN ',' ELSE '' END
    || json_object('state', 'SUCCEEDED', 'at_ms', ?1, 'reason', batch.reason, 'attempt', runs.attempt,
         'fence', runs.fence, 'target_status', batch.target_status) || ']'`,
  updated_at_ms: "?1",
};

const SUCCEEDED_SELECT = HISTORY_COLUMNS.map((column) => SUCCEEDED_COLUMNS[column] ?? `runs.${column}`).join(
  ", ",
);

/** A settled run's key: what names its record, and (through runIdFor) its row. */
export type SettledKey = {
  job_id: string;
  scheduled_at_ms: number;
  tenant_id: string;
};

/**
 * Writes the history records of RUNNING runs that succeeded, as their rows read after the move
 * (../runs/settle.ts deletes the rows right after). `batchJson` holds
 * `[run_id, reason, target_status, duration_ms, fence, job_id]` per run; `fenced`: only a run still
 * at that fence and job moves (the outcomes' fast path, which has not read the rows). Returns the
 * runs written.
 */
export function recordSucceeded(
  sql: SqlStorage,
  batchJson: string,
  nowMs: number,
  fenced: boolean,
): SettledKey[] {
  const fence = fenced ? "AND runs.fence = batch.fence AND runs.job_id = batch.job_id" : "";
  return sql
    .exec<SettledKey>(
      `INSERT INTO run_history (${HISTORY_COLUMN_LIST})
       SELECT ${SUCCEEDED_SELECT}
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS reason,
               json_extract(value, '$[2]') AS target_status, json_extract(value, '$[3]') AS duration_ms,
               json_extract(value, '$[4]') AS fence, json_extract(value, '$[5]') AS job_id
             FROM json_each(?2)) AS batch
       JOIN runs ON runs.run_id = batch.id
       WHERE runs.state = 'RUNNING' ${fence}
       ON CONFLICT (job_id, scheduled_at_ms) DO UPDATE SET ${UPDATE_SET}
       RETURNING job_id, scheduled_at_ms, tenant_id`,
      nowMs,
      batchJson,
    )
    .toArray();
}

const IMPORT_SQL = `
INSERT INTO run_history (${HISTORY_COLUMNS.join(", ")})
SELECT ${HISTORY_COLUMNS.map((column) => `json_extract(value, '$.${column}')`).join(", ")} FROM json_each(?) WHERE true
ON CONFLICT (job_id, scheduled_at_ms) DO UPDATE SET ${UPDATE_SET}
WHERE excluded.updated_at_ms > run_history.updated_at_ms`;

/**
 * Takes in history records from elsewhere (the legacy D1 table): a record the shard already
 * holds in a newer version is left as it is. Returns how many were written.
 */
export function importHistory(sql: SqlStorage, records: readonly Record<string, unknown>[]): number {
  if (records.length === 0) return 0;
  const rows = records.map((record) =>
    // Records from before debounce (shard schema v20) fold nothing.
    Object.fromEntries(HISTORY_COLUMNS.map((c) => [c, record[c] ?? (c === "triggers_folded" ? 0 : null)])),
  );
  return sql.exec(IMPORT_SQL, JSON.stringify(rows)).rowsWritten;
}

/** The stats read the last hour of per-minute aggregates; two hours are kept for the edges. */
const MINUTES_KEPT_MS = 2 * 3_600_000;

/**
 * Deletes up to `limit` history records of terminal runs created before `beforeMs`; returns how
 * many. Runs still unfinished are kept whatever their age (they are still news).
 */
export function pruneHistory(sql: SqlStorage, beforeMs: number, nowMs: number, limit: number): number {
  const deleted = sql
    .exec<{ job_id: string }>(
      `DELETE FROM run_history WHERE (job_id, scheduled_at_ms) IN (
         SELECT job_id, scheduled_at_ms FROM run_history
         WHERE created_at_ms < ? AND state IN ${sqlInList(TERMINAL_STATES)} LIMIT ?)
       RETURNING job_id`,
      beforeMs,
      limit,
    )
    .toArray().length;
  sql.exec("DELETE FROM run_minutes WHERE minute_ms < ?", nowMs - MINUTES_KEPT_MS);
  sql.exec("DELETE FROM run_counts WHERE n <= 0");
  return deleted;
}
