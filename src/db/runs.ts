import { type RunState, sqlInList, TERMINAL_STATES } from "../core/run-state";
import { addClause, addCursor, selectPage, type TimeCursor, where } from "./page";
import { chunk, iso, isoOrNull, parseJsonColumn } from "./time";

export { RUN_STATES, type RunState } from "../core/run-state";

export interface RunRow {
  id: string;
  job_id: string;
  tenant_id: string;
  shard: number;
  kind: string;
  scheduled_at_ms: number;
  idempotency_key: string;
  state: string;
  attempt: number;
  max_attempts: number;
  fence: number | null;
  job_version: number;
  target_status: number | null;
  error: string | null;
  lateness_ms: number | null;
  duration_ms: number | null;
  next_attempt_at_ms: number | null;
  events_json: string;
  created_at_ms: number;
  updated_at_ms: number;
  // Long-running runs only; a writer may leave them out (stored as NULL).
  accepted_at_ms?: number | null;
  heartbeat_at_ms?: number | null;
  result_json?: string | null;
}

/** A stored event `{state, at_ms, reason, attempt, ...}` as `{state, at, reason, attempt, ...}`. */
function eventResource(event: Record<string, unknown>) {
  const { at_ms: atMs, ...rest } = event;
  return { state: rest.state, at: typeof atMs === "number" ? iso(atMs) : null, ...rest };
}

export function runResource(row: RunRow) {
  const events = parseJsonColumn<Record<string, unknown>[]>(row.events_json, []);
  return {
    id: row.id,
    job_id: row.job_id,
    kind: row.kind,
    scheduled_at: iso(row.scheduled_at_ms),
    idempotency_key: row.idempotency_key,
    state: row.state,
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    fence: row.fence,
    job_version: row.job_version,
    target_status: row.target_status,
    error: row.error,
    lateness_ms: row.lateness_ms,
    duration_ms: row.duration_ms,
    next_attempt_at: isoOrNull(row.next_attempt_at_ms),
    events: Array.isArray(events) ? events.map(eventResource) : [],
    accepted_at: isoOrNull(row.accepted_at_ms ?? null),
    last_heartbeat_at: isoOrNull(row.heartbeat_at_ms ?? null),
    result: parseJsonColumn<unknown>(row.result_json ?? null, null),
    created_at: iso(row.created_at_ms),
    updated_at: iso(row.updated_at_ms),
  };
}

export async function findRun(db: D1Database, tenantId: string, id: string): Promise<RunRow | null> {
  return db.prepare("SELECT * FROM runs WHERE id = ? AND tenant_id = ?").bind(id, tenantId).first<RunRow>();
}

/** A job's run history, newest scheduled instant first. */
export async function listRunsOfJob(
  db: D1Database,
  tenantId: string,
  jobId: string,
  page: { cursor?: TimeCursor; limit: number },
): Promise<RunRow[]> {
  const filter = where("job_id = ?", jobId);
  addClause(filter, "tenant_id = ?", tenantId);
  addCursor(filter, "scheduled_at_ms", page.cursor);
  return selectPage<RunRow>(db, "runs", filter, "scheduled_at_ms", page.limit);
}

/** A tenant's runs, newest created first. */
export async function listRuns(
  db: D1Database,
  tenantId: string,
  page: { state?: RunState; jobId?: string; cursor?: TimeCursor; limit: number },
): Promise<RunRow[]> {
  const filter = where("tenant_id = ?", tenantId);
  if (page.state !== undefined) addClause(filter, "state = ?", page.state);
  if (page.jobId !== undefined) addClause(filter, "job_id = ?", page.jobId);
  addCursor(filter, "created_at_ms", page.cursor);
  return selectPage<RunRow>(db, "runs", filter, "created_at_ms", page.limit);
}

/** The shard that owns a run, from any tenant-visible run row. */
export async function findRunShard(db: D1Database, tenantId: string, runId: string): Promise<number | null> {
  const row = await db
    .prepare("SELECT shard FROM runs WHERE id = ? AND tenant_id = ?")
    .bind(runId, tenantId)
    .first<{ shard: number }>();
  return row?.shard ?? null;
}

/** Rows per upsert statement: one bound parameter carries them as JSON (D1 binds ≤ 100). */
const RUNS_PER_UPSERT = 250;

const UPSERT_RUNS_SQL = `
INSERT INTO runs (id, job_id, tenant_id, shard, kind, scheduled_at_ms, idempotency_key, state, attempt,
  max_attempts, fence, job_version, target_status, error, lateness_ms, duration_ms, next_attempt_at_ms,
  events_json, created_at_ms, updated_at_ms, accepted_at_ms, heartbeat_at_ms, result_json)
SELECT json_extract(value, '$.id'), json_extract(value, '$.job_id'), json_extract(value, '$.tenant_id'),
  json_extract(value, '$.shard'), json_extract(value, '$.kind'), json_extract(value, '$.scheduled_at_ms'),
  json_extract(value, '$.idempotency_key'), json_extract(value, '$.state'), json_extract(value, '$.attempt'),
  json_extract(value, '$.max_attempts'), json_extract(value, '$.fence'), json_extract(value, '$.job_version'),
  json_extract(value, '$.target_status'), json_extract(value, '$.error'), json_extract(value, '$.lateness_ms'),
  json_extract(value, '$.duration_ms'), json_extract(value, '$.next_attempt_at_ms'),
  json_extract(value, '$.events_json'), json_extract(value, '$.created_at_ms'), json_extract(value, '$.updated_at_ms'),
  json_extract(value, '$.accepted_at_ms'), json_extract(value, '$.heartbeat_at_ms'), json_extract(value, '$.result_json')
FROM json_each(?1) WHERE true
ON CONFLICT(id) DO UPDATE SET state = excluded.state, attempt = excluded.attempt,
  max_attempts = excluded.max_attempts, fence = excluded.fence, job_version = excluded.job_version,
  target_status = excluded.target_status, error = excluded.error, lateness_ms = excluded.lateness_ms,
  duration_ms = excluded.duration_ms, next_attempt_at_ms = excluded.next_attempt_at_ms,
  events_json = excluded.events_json, updated_at_ms = excluded.updated_at_ms,
  accepted_at_ms = excluded.accepted_at_ms, heartbeat_at_ms = excluded.heartbeat_at_ms,
  result_json = excluded.result_json
WHERE excluded.updated_at_ms >= runs.updated_at_ms`;

/**
 * Writes a shard's runs to the history in one D1 batch. A row older than the one D1 holds (by
 * updated_at_ms) changes nothing, so a late or repeated flush never moves a run backwards.
 */
export async function upsertRuns(db: D1Database, runs: readonly RunRow[]): Promise<void> {
  if (runs.length === 0) return;
  await db.batch(
    chunk(runs, RUNS_PER_UPSERT).map((group) => db.prepare(UPSERT_RUNS_SQL).bind(JSON.stringify(group))),
  );
}

/** Deletes up to `limit` terminal runs last changed before `beforeMs`; returns how many. */
export async function pruneTerminalRuns(db: D1Database, beforeMs: number, limit: number): Promise<number> {
  const result = await db
    .prepare(
      `DELETE FROM runs WHERE id IN (
         SELECT id FROM runs WHERE updated_at_ms < ? AND state IN ${sqlInList(TERMINAL_STATES)} LIMIT ?)`,
    )
    .bind(beforeMs, limit)
    .run();
  return result.meta.changes ?? 0;
}
