// Bringing a shard's state into memory when its object starts: from its checkpoint and the
// journal after it, or, the first time a shard of schema v23 starts, from its rows (read once,
// checkpointed, and the moved rows deleted).
import { DEFAULT_JOB_PRIORITY, type JobSpec } from "../../../src/core/jobs/job-spec";
import type { RunState } from "../../../src/core/runs/run-state";
import type { JobStatus } from "../../../src/shard/protocol";
import type { Run } from "../records/run";
import {
  deleteLegacyState,
  hasLegacyState,
  type LegacyJobRow,
  type LegacyRunRow,
  readLegacyCounts,
  readLegacyFenceSeq,
  readLegacyJobs,
  readLegacyRuns,
  readParkedTimers,
} from "../store/legacy-state";
import type { JobRecord } from "./job-book";
import type { ShardState } from "./shard-state";

/** Restores the state; returns whether it came from v23 rows. */
export function restoreShardState(state: ShardState, nowMs: number): boolean {
  if (state.restore()) return false;
  if (!hasLegacyState(state.sql)) return false;
  importLegacy(state, nowMs);
  return true;
}

function importLegacy(state: ShardState, nowMs: number): void {
  const { sql } = state;
  const parked = readParkedTimers(sql);
  for (const row of readLegacyJobs(sql)) state.putJob(jobOfRow(row, parked.get(row.job_id) ?? null));
  for (const row of readLegacyRuns(sql)) {
    const run = runOfRow(row);
    state.addRun(run);
    // Settled runs the old table kept a day (for an operator's retry) go to their history now.
    const final = run.state === "SUCCEEDED" || run.state === "SKIPPED" || run.state === "CANCELLED";
    if (final || (run.state === "DEAD_LETTERED" && run.dlq_pending === 0)) state.settleRun(run);
  }
  const { counts, minutes } = readLegacyCounts(sql);
  state.importLegacyStats(counts, minutes);
  state.nextFences(readLegacyFenceSeq(sql));
  state.commit(nowMs);
  state.checkpoint(nowMs);
  deleteLegacyState(sql);
}

function jobOfRow(row: LegacyJobRow, parkedFireMs: number | null): JobRecord {
  const spec = JSON.parse(row.spec_json) as JobSpec;
  return {
    job_id: row.job_id,
    tenant_id: row.tenant_id,
    version: row.version,
    status: row.status as JobStatus,
    created_at_ms: row.created_at_ms,
    next_scheduled_ms: row.next_scheduled_ms,
    next_fire_ms: row.next_fire_ms,
    run_count: row.run_count,
    consecutive_failures: row.consecutive_failures,
    paused_at_ms: row.paused_at_ms,
    pause_reason: row.pause_reason,
    status_dirty: row.status_dirty,
    completion_implied: false,
    last_missed_alert_ms: row.last_missed_alert_ms,
    fired_through_ms: row.fired_through_ms,
    calendars_revision: row.calendars_revision,
    overlap: spec.overlap,
    priority: spec.priority ?? DEFAULT_JOB_PRIORITY,
    // A run v23 sent ahead kept the job's timer at its instant: the instant is fired by the timer
    // and finds its run there (ahead runs are re-created by the wheel only once that has passed).
    ahead_fire_ms: row.ahead_scheduled_ms === null ? null : row.next_fire_ms,
    parked_fire_ms: parkedFireMs,
    history_buckets: [],
  };
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const str = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** A run as a v23 `runs` row held it. */
export function runOfRow(row: LegacyRunRow): Run {
  return {
    run_id: row.run_id,
    job_id: String(row.job_id),
    tenant_id: String(row.tenant_id),
    kind: row.kind as Run["kind"],
    scheduled_at_ms: Number(row.scheduled_at_ms),
    fire_at_ms: Number(row.fire_at_ms),
    state: row.state as RunState,
    attempt: Number(row.attempt),
    max_attempts: Number(row.max_attempts),
    fence: num(row.fence),
    job_version: Number(row.job_version),
    due_at_ms: num(row.due_at_ms),
    waiting: row.waiting === "overlap" ? "overlap" : null,
    dispatch_count: Number(row.dispatch_count ?? 0),
    target_status: num(row.target_status),
    error: str(row.error),
    lateness_ms: num(row.lateness_ms),
    duration_ms: num(row.duration_ms),
    next_attempt_at_ms: num(row.next_attempt_at_ms),
    created_at_ms: Number(row.created_at_ms),
    updated_at_ms: Number(row.updated_at_ms),
    rev: Number(row.rev ?? 1),
    dlq_pending: Number(row.dlq_pending ?? 0),
    dlq_reason: str(row.dlq_reason),
    dlq_send_failures: Number(row.dlq_send_failures ?? 0),
    dlq_retry_at_ms: num(row.dlq_retry_at_ms),
    manual: Number(row.manual ?? 0),
    accepted_at_ms: num(row.accepted_at_ms),
    heartbeat_at_ms: num(row.heartbeat_at_ms),
    result_json: str(row.result_json),
    priority: Number(row.priority ?? DEFAULT_JOB_PRIORITY),
    flow_gate: str(row.flow_gate),
    held_ms: num(row.held_ms),
    held_by: str(row.held_by),
    slow_since_ms: num(row.slow_since_ms),
    triggers_folded: Number(row.triggers_folded ?? 0),
    events: JSON.parse(row.events_json) as Run["events"],
  };
}
