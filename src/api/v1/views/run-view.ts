// Run history as the API shows it: a shard's history record (src/shard/history-protocol.ts) as
// the run resource of GET /v1/runs, /v1/runs/{id} and a job's runs.

import { iso, isoOrNull, parseJsonColumn } from "../../../core/common/stored-values";
import { latenessSplit, waitingOf } from "../../../core/load/run-waits";
import { traceIdOf } from "../../../core/trace/trace-ids";
import type { HistoryRecord } from "../../../shard/history-protocol";

/** A stored event `{state, at_ms, reason, attempt, ...}` as `{state, at, reason, attempt, ...}`. */
function eventResource(event: Record<string, unknown>) {
  const { at_ms: atMs, ...rest } = event;
  return { state: rest.state, at: typeof atMs === "number" ? iso(atMs) : null, ...rest };
}

/** Why the run waits, if it has not gone out (src/core/load/run-waits.ts). */
function waitingResource(row: HistoryRecord, events: readonly Record<string, unknown>[], nowMs: number) {
  const waiting = waitingOf(
    {
      state: row.state,
      kind: row.kind,
      events,
      nextAttemptAtMs: row.next_attempt_at_ms,
      scheduledAtMs: row.scheduled_at_ms,
    },
    nowMs,
  );
  return waiting === null
    ? null
    : { cause: waiting.cause, reason: waiting.reason, since: isoOrNull(waiting.sinceMs) };
}

function latenessResource(row: HistoryRecord, events: readonly Record<string, unknown>[]) {
  if (row.lateness_ms === null) return null;
  const first = events[0]?.reason;
  const split = latenessSplit({
    latenessMs: row.lateness_ms,
    kind: row.kind,
    misfire: typeof first === "string" && first.startsWith("misfire"),
    heldMs: row.held_ms ?? null,
    heldBy: row.held_by ?? null,
    createdAtMs: row.created_at_ms,
    scheduledAtMs: row.scheduled_at_ms,
  });
  return { scheduler_ms: split.schedulerMs, policy_ms: split.policyMs, policy: split.policy };
}

export function runResource(row: HistoryRecord, nowMs = Date.now()) {
  const parsed = parseJsonColumn<Record<string, unknown>[]>(row.events_json, []);
  const events = Array.isArray(parsed) ? parsed : [];
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
    lateness: latenessResource(row, events),
    waiting: waitingResource(row, events, nowMs),
    duration_ms: row.duration_ms,
    next_attempt_at: isoOrNull(row.next_attempt_at_ms),
    events: events.map(eventResource),
    accepted_at: isoOrNull(row.accepted_at_ms),
    last_heartbeat_at: isoOrNull(row.heartbeat_at_ms),
    result: parseJsonColumn<unknown>(row.result_json, null),
    triggers_folded: row.triggers_folded ?? 0,
    trace_id: traceIdOf(row.id),
    created_at: iso(row.created_at_ms),
    updated_at: iso(row.updated_at_ms),
  };
}
