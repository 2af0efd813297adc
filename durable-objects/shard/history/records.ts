// A shard's run history: one compact record per run in run_history (schema v11), copied from the
// run's row in `runs` when the run settles (see ./history.ts) and kept HISTORY_RETENTION_DAYS.
// The shard already owns the run, so history costs no request and no other database: a write is
// a local upsert in the same SQLite, and reads are routed to the owning shard (src/shard/client.ts).
import { sqlInList, TERMINAL_STATES } from "../../../src/core/run-state";
import { markRecorded } from "../runs/run-timers";

const HISTORY_COLUMNS = [
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
