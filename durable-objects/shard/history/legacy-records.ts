// The run history table of shard schema v11-v23 (run_history, one row per run), read-only since
// history went into pages (../store/history-pages.ts): its records stay readable until retention prunes them
// (./legacy-reads.ts), and records moved in from the older D1 table still land here.
import { sqlInList, TERMINAL_STATES } from "../../../src/core/runs/run-state";

/** The columns of a history record in run_history. */
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

const KEY_COLUMNS = new Set<string>(["job_id", "scheduled_at_ms", "tenant_id", "kind", "created_at_ms"]);

/** Everything but the key and what never changes is taken from the newer write. */
const UPDATE_SET = HISTORY_COLUMNS.filter((column) => !KEY_COLUMNS.has(column))
  .map((column) => `${column} = excluded.${column}`)
  .join(", ");

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

/**
 * Deletes up to `limit` records of terminal runs created before `beforeMs`; returns the tenant and
 * state of each (the stats forget them).
 */
export function pruneLegacyHistory(
  sql: SqlStorage,
  beforeMs: number,
  limit: number,
): { tenant_id: string; state: string }[] {
  return sql
    .exec<{ tenant_id: string; state: string }>(
      `DELETE FROM run_history WHERE (job_id, scheduled_at_ms) IN (
         SELECT job_id, scheduled_at_ms FROM run_history
         WHERE created_at_ms < ? AND state IN ${sqlInList(TERMINAL_STATES)} LIMIT ?)
       RETURNING tenant_id, state`,
      beforeMs,
      limit,
    )
    .toArray();
}
