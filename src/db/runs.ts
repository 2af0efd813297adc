import { addClause, addCursor, selectPage, type TimeCursor, where } from "./page";
import { iso, isoOrNull, parseJsonColumn } from "./time";

import type { RunState } from "../core/run-state";

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
