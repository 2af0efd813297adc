// Run history as the API shows it: a shard's history record (src/shard/history-protocol.ts) as
// the run resource of GET /v1/runs, /v1/runs/{id} and a job's runs.
import { iso, isoOrNull, parseJsonColumn } from "../db/time";
import type { HistoryRecord } from "../shard/history-protocol";

/** A stored event `{state, at_ms, reason, attempt, ...}` as `{state, at, reason, attempt, ...}`. */
function eventResource(event: Record<string, unknown>) {
  const { at_ms: atMs, ...rest } = event;
  return { state: rest.state, at: typeof atMs === "number" ? iso(atMs) : null, ...rest };
}

export function runResource(row: HistoryRecord) {
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
    accepted_at: isoOrNull(row.accepted_at_ms),
    last_heartbeat_at: isoOrNull(row.heartbeat_at_ms),
    result: parseJsonColumn<unknown>(row.result_json, null),
    created_at: iso(row.created_at_ms),
    updated_at: iso(row.updated_at_ms),
  };
}
