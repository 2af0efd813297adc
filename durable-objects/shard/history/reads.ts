// Reads of a shard's run history (./history-store.ts): one run, a job's runs, this shard's part of
// a tenant's runs (the Worker merges the shards' pages), and the aggregates behind the stats.
import { runIdempotencyKey } from "../../../src/core/run-idempotency";
import { sqlInList, UNCLAIMED_STATES } from "../../../src/core/run-state";
import { latenessSplit } from "../../../src/core/run-waits";
import type {
  FiredSinceQuery,
  HistoryCursor,
  HistoryRecord,
  HistoryStats,
  HistoryStatsQuery,
  JobHistoryQuery,
  LatenessSample,
  TenantHistoryQuery,
} from "../../../src/shard/history-protocol";
import { runIdFor } from "../runs/run-store";
import { HISTORY_COLUMN_LIST } from "./records";

type StoredRecord = Omit<HistoryRecord, "id" | "shard" | "idempotency_key">;

/** The run id, as SQL: what `runIdFor` makes of the key, for ordering ties like the Worker does. */
const RUN_ID_SQL = `('run_' || CASE WHEN substr(job_id, 1, 4) = 'job_' THEN substr(job_id, 5) ELSE job_id END
  || '_' || scheduled_at_ms)`;

function recordOf(row: StoredRecord, shard: number): HistoryRecord {
  return {
    ...row,
    id: runIdFor(row.job_id, row.scheduled_at_ms),
    shard,
    idempotency_key: runIdempotencyKey(row.job_id, row.scheduled_at_ms),
  };
}

export function historyRun(
  sql: SqlStorage,
  shard: number,
  tenantId: string,
  jobId: string,
  scheduledAtMs: number,
): HistoryRecord | null {
  const row = sql
    .exec<StoredRecord>(
      "SELECT * FROM run_history WHERE job_id = ? AND scheduled_at_ms = ? AND tenant_id = ?",
      jobId,
      scheduledAtMs,
      tenantId,
    )
    .toArray()[0];
  const live = sql
    .exec<StoredRecord>(
      `SELECT ${HISTORY_COLUMN_LIST} FROM runs WHERE job_id = ? AND scheduled_at_ms = ? AND tenant_id = ?`,
      jobId,
      scheduledAtMs,
      tenantId,
    )
    .toArray()[0];
  const newest = newerOf(row, live);
  return newest === undefined ? null : recordOf(newest, shard);
}

/**
 * The newer of a run's history record and its live row. The history is written when a run settles
 * or moves on, so a run waiting in the wheel (a re-send after its lease expired, a catch-up after a
 * crash, one held back by the window) may have no record yet, or an older one: its live row is
 * what it is now, never a 404 nor a state it has left.
 */
function newerOf(record: StoredRecord | undefined, live: StoredRecord | undefined): StoredRecord | undefined {
  if (record === undefined) return live;
  if (live === undefined) return record;
  return live.updated_at_ms > record.updated_at_ms ? live : record;
}

/** A job's runs, newest instant first. Within a job the instant is unique, so it alone orders. */
/**
 * One job's records with its live rows merged in, each run the newer of its record and its row.
 * A run sent ahead of its instant is left out before the instant, as its record is not written.
 */
function withLiveRows(records: StoredRecord[], live: StoredRecord[]): StoredRecord[] {
  const byInstant = new Map(records.map((row) => [row.scheduled_at_ms, row]));
  const nowMs = Date.now();
  for (const row of live) {
    if (row.scheduled_at_ms > nowMs) continue;
    const newest = newerOf(byInstant.get(row.scheduled_at_ms), row);
    if (newest !== undefined) byInstant.set(row.scheduled_at_ms, newest);
  }
  return [...byInstant.values()];
}

export function jobHistory(sql: SqlStorage, shard: number, query: JobHistoryQuery): HistoryRecord[] {
  const beforeMs = query.cursor?.ms ?? Number.MAX_SAFE_INTEGER;
  const read = (table: string, columns: string) =>
    sql
      .exec<StoredRecord>(
        `SELECT ${columns} FROM ${table} WHERE job_id = ? AND tenant_id = ? AND scheduled_at_ms < ?
         ORDER BY scheduled_at_ms DESC LIMIT ?`,
        query.jobId,
        query.tenantId,
        beforeMs,
        query.limit,
      )
      .toArray();
  // The job's live runs too (a handful: those not yet settled), each the newer of it and its record.
  return withLiveRows(read("run_history", "*"), read("runs", HISTORY_COLUMN_LIST))
    .sort((a, b) => b.scheduled_at_ms - a.scheduled_at_ms)
    .slice(0, query.limit)
    .map((row) => recordOf(row, shard));
}

function cursorClause(cursor: HistoryCursor | undefined): { clause: string; values: (string | number)[] } {
  if (cursor === undefined) return { clause: "", values: [] };
  return {
    // The first term is implied by the second; it makes the read a range seek on the index
    // instead of a walk past every newer run.
    clause: ` AND created_at_ms <= ? AND (created_at_ms < ? OR (created_at_ms = ? AND ${RUN_ID_SQL} < ?))`,
    values: [cursor.ms, cursor.ms, cursor.ms, cursor.id],
  };
}

/** This shard's runs of a tenant, newest created first (ties: run id descending). */
export function tenantHistory(sql: SqlStorage, shard: number, query: TenantHistoryQuery): HistoryRecord[] {
  const filters: string[] = ["tenant_id = ?"];
  const values: (string | number)[] = [query.tenantId];
  if (query.state !== undefined) {
    filters.push("state = ?");
    values.push(query.state);
    // The exact term of the partial index's WHERE: only then may SQLite use it.
    if (query.state !== "SUCCEEDED") filters.push("state <> 'SUCCEEDED'");
  }
  if (query.jobId !== undefined) {
    filters.push("job_id = ?");
    values.push(query.jobId);
  }
  const after = cursorClause(query.cursor);
  const records = sql
    .exec<StoredRecord>(
      `SELECT * FROM run_history WHERE ${filters.join(" AND ")}${after.clause}
       ORDER BY created_at_ms DESC, ${RUN_ID_SQL} DESC LIMIT ?`,
      ...values,
      ...after.values,
      query.limit,
    )
    .toArray();
  const jobId = query.jobId;
  if (jobId === undefined) return records.map((row) => recordOf(row, shard));
  return tenantPageWithLiveRuns(sql, records, { ...query, jobId }, after).map((row) => recordOf(row, shard));
}

/**
 * One job's page with its live runs merged in, each the newer of it and its record (as the job's
 * own run list reads them, jobHistory): a run the live row already shows settled, its record not
 * yet written, is listed here too. The live runs of one job are a handful (runs_job_state).
 */
function tenantPageWithLiveRuns(
  sql: SqlStorage,
  records: StoredRecord[],
  query: TenantHistoryQuery & { jobId: string },
  after: { clause: string; values: (string | number)[] },
): StoredRecord[] {
  const live = sql
    .exec<StoredRecord>(
      `SELECT ${HISTORY_COLUMN_LIST} FROM runs WHERE job_id = ? AND tenant_id = ?${after.clause}
       ORDER BY created_at_ms DESC, ${RUN_ID_SQL} DESC LIMIT ?`,
      query.jobId,
      query.tenantId,
      ...after.values,
      query.limit,
    )
    .toArray();
  const rowId = (row: StoredRecord) => runIdFor(row.job_id, row.scheduled_at_ms);
  return withLiveRows(records, live)
    .filter((row) => query.state === undefined || row.state === query.state)
    .sort((a, b) => b.created_at_ms - a.created_at_ms || (rowId(a) < rowId(b) ? 1 : -1))
    .slice(0, query.limit);
}

/** A fire the shard recorded as a misfire (its first reason says so). */
const MISFIRE_SQL = `(json_extract(events_json, '$[0].reason') LIKE 'misfire%')`;
/** Late on purpose: a backfill or catch-up run, or a fire the shard recorded as a misfire. */
const DELIBERATE_SQL = `(kind IN ('backfill', 'catch_up') OR ${MISFIRE_SQL})`;

type LatenessRow = {
  createdAtMs: number;
  latenessMs: number;
  deliberate: number;
  misfire: number;
  kind: string;
  heldMs: number | null;
  heldBy: string | null;
  scheduledAtMs: number;
};

function latenessSample(row: LatenessRow): LatenessSample {
  const split = latenessSplit({ ...row, misfire: row.misfire === 1 });
  return {
    createdAtMs: row.createdAtMs,
    latenessMs: row.latenessMs,
    deliberate: row.deliberate === 1,
    ...split,
  };
}

export function historyStats(sql: SqlStorage, query: HistoryStatsQuery): HistoryStats {
  const tenant = query.tenantId === null ? "" : "tenant_id = ? AND";
  const tenantValues = query.tenantId === null ? [] : [query.tenantId];
  const byState = sql
    .exec<{ state: string; n: number }>(
      `SELECT state, SUM(n) AS n FROM run_counts WHERE ${tenant} n > 0 GROUP BY state`,
      ...tenantValues,
    )
    .toArray();
  const minutes = sql
    .exec<{ minuteMs: number; triggers: number; failures: number }>(
      `SELECT minute_ms AS minuteMs, SUM(triggers) AS triggers, SUM(failures) AS failures FROM run_minutes
       WHERE ${tenant} minute_ms >= ? GROUP BY minute_ms`,
      ...tenantValues,
      query.sinceMs,
    )
    .toArray();
  const lateness = sql
    .exec<LatenessRow>(
      `SELECT created_at_ms AS createdAtMs, lateness_ms AS latenessMs, ${DELIBERATE_SQL} AS deliberate,
         ${MISFIRE_SQL} AS misfire, kind, held_ms AS heldMs, held_by AS heldBy, scheduled_at_ms AS scheduledAtMs
       FROM run_history WHERE ${tenant} created_at_ms >= ? AND lateness_ms IS NOT NULL
       ORDER BY created_at_ms DESC LIMIT ?`,
      ...tenantValues,
      query.sinceMs,
      query.latenessLimit,
    )
    .toArray()
    .map(latenessSample);
  return { byState, minutes, lateness };
}

/**
 * Which of `queries` (by index) saw their job fire since their instant: a run of the job's
 * schedule (not a manual trigger or backfill) that a consumer took (it has a fence and is past
 * the unclaimed states: a run sent and never claimed is the missed run itself, not its recovery).
 * A query naming a run waits for that run: a later instant going out while it still waits (an
 * overlap buffer, flow control) has not recovered it.
 */
export function firedSince(sql: SqlStorage, queries: readonly FiredSinceQuery[]): number[] {
  if (queries.length === 0) return [];
  return sql
    .exec<{ i: number }>(
      `SELECT CAST(asked.key AS INTEGER) AS i FROM (
         SELECT key, json_extract(value, '$[0]') AS job_id, json_extract(value, '$[1]') AS since_ms,
           json_extract(value, '$[2]') AS named_at_ms FROM json_each(?)
       ) AS asked
       WHERE EXISTS (SELECT 1 FROM run_history r WHERE r.job_id = asked.job_id
         AND r.scheduled_at_ms >= asked.since_ms
         AND (asked.named_at_ms IS NULL OR r.scheduled_at_ms = asked.named_at_ms) AND r.kind IN ('schedule', 'catch_up') AND r.fence IS NOT NULL
         AND r.state NOT IN ${sqlInList(["SCHEDULED", ...UNCLAIMED_STATES])})`,
      JSON.stringify(queries.map((query) => [query.jobId, query.sinceMs, query.namedRunAtMs ?? null])),
    )
    .toArray()
    .map((row) => row.i);
}
