// A run's history record as a history page holds it (../store/history-pages.ts): its columns as
// one array in a fixed order (a page holds dozens; keys repeated in each would double its size),
// the tenant being the page's. And the record as every read returns it.
import type { HistoryRecord } from "../../../src/shard/history-protocol";
import type { Run, RunEvent, RunKind } from "./run";

/** A history record without what is derived from it (its id, shard, idempotency key). */
export type StoredRecord = Omit<HistoryRecord, "id" | "shard" | "idempotency_key">;

export type HistoryPageRecord = [
  jobId: string,
  scheduledAtMs: number,
  kind: RunKind,
  state: string,
  attempt: number,
  maxAttempts: number,
  fence: number | null,
  jobVersion: number,
  targetStatus: number | null,
  error: string | null,
  latenessMs: number | null,
  durationMs: number | null,
  nextAttemptAtMs: number | null,
  events: RunEvent[],
  createdAtMs: number,
  updatedAtMs: number,
  acceptedAtMs: number | null,
  heartbeatAtMs: number | null,
  resultJson: string | null,
  heldMs: number | null,
  heldBy: string | null,
  triggersFolded: number,
];

export function pageRecordOf(run: Run): HistoryPageRecord {
  return [
    run.job_id,
    run.scheduled_at_ms,
    run.kind,
    run.state,
    run.attempt,
    run.max_attempts,
    run.fence,
    run.job_version,
    run.target_status,
    run.error,
    run.lateness_ms,
    run.duration_ms,
    run.next_attempt_at_ms,
    run.events,
    run.created_at_ms,
    run.updated_at_ms,
    run.accepted_at_ms,
    run.heartbeat_at_ms,
    run.result_json,
    run.held_ms,
    run.held_by,
    run.triggers_folded,
  ];
}

export function storedRecordOfPage(tenantId: string, record: HistoryPageRecord): StoredRecord {
  const [
    job_id,
    scheduled_at_ms,
    kind,
    state,
    attempt,
    max_attempts,
    fence,
    job_version,
    target_status,
    error,
    lateness_ms,
    duration_ms,
    next_attempt_at_ms,
    events,
    created_at_ms,
    updated_at_ms,
    accepted_at_ms,
    heartbeat_at_ms,
    result_json,
    held_ms,
    held_by,
    triggers_folded,
  ] = record;
  return {
    job_id,
    tenant_id: tenantId,
    kind,
    scheduled_at_ms,
    state,
    attempt,
    max_attempts,
    fence,
    job_version,
    target_status,
    error,
    lateness_ms,
    duration_ms,
    next_attempt_at_ms,
    events_json: JSON.stringify(events),
    created_at_ms,
    updated_at_ms,
    accepted_at_ms,
    heartbeat_at_ms,
    result_json,
    held_ms,
    held_by,
    triggers_folded,
  };
}

/** A live run as a history read returns it. */
export function storedRecordOfRun(run: Run): StoredRecord {
  return storedRecordOfPage(run.tenant_id, pageRecordOf(run));
}
