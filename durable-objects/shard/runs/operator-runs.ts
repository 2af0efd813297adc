// Operator actions that create or revive runs: trigger now, backfill a range, manual retry.
// They only put runs on the wheel (due now); the alarm is the one path that dispatches.

import { parseRunId, runIdFor } from "../../../src/core/runs/run-id";
import { backfillInstants, MAX_BACKFILL_INSTANTS } from "../../../src/core/schedules/backfill";
import { isExcluded } from "../../../src/core/schedules/exclusions";
import { schedulesOf } from "../../../src/core/schedules/schedule-set";
import type { BackfillResult, RetryResult, TriggerResult } from "../../../src/shard/protocol";
import { findRecord } from "../history/run-lookups";
import { startRun } from "../instants/firing";
import { recordExcluded } from "../instants/skipped-runs";
import { jobExclusions, jobSpec } from "../jobs/job-specs";
import { createdRun, type Run } from "../records/run";
import { moveRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { triggerDebounced } from "./debounce-windows";
import { freeTriggerInstant } from "./trigger-instants";

export { MAX_BACKFILL_INSTANTS };

/** A manual trigger; with the job's `debounce` it may fold into a run of the same key instead. */
export function triggerNow(
  state: ShardState,
  jobId: string,
  nowMs: number,
  debounceKey?: string,
): TriggerResult {
  const job = state.jobs.get(jobId);
  if (job === undefined || job.status === "DELETED") return { ok: false, code: "job_not_found" };
  if (job.status === "PAUSED") return { ok: false, code: "job_not_active" };
  const debounce = jobSpec(state, job).debounce;
  if (debounce) return triggerDebounced(state, job, debounce, debounceKey, nowMs);
  const scheduledAtMs = freeTriggerInstant(state, jobId, nowMs);
  startRun(state, job, { scheduledAtMs, fireAtMs: scheduledAtMs }, "trigger", "triggered manually", nowMs);
  return {
    ok: true,
    runId: runIdFor(jobId, scheduledAtMs),
    scheduledAtMs,
    fireAtMs: scheduledAtMs,
    folded: false,
  };
}

export function backfill(
  state: ShardState,
  jobId: string,
  fromMs: number,
  toMs: number,
  nowMs: number,
): BackfillResult {
  const job = state.jobs.get(jobId);
  if (job === undefined || job.status === "DELETED") return { ok: false, code: "job_not_found" };
  if (job.status === "PAUSED") return { ok: false, code: "job_not_active" };
  // Never later than this shard's own now, whatever the caller checked: a future instant's key
  // is the real schedule's to take.
  const instants = backfillInstants(schedulesOf(jobSpec(state, job)), fromMs, toMs, nowMs);
  if (instants.length > MAX_BACKFILL_INSTANTS) return { ok: false, code: "too_many_instants" };
  const runIds: string[] = [];
  let skipped = 0;
  const exclusions = jobExclusions(state, job);
  for (const scheduledAtMs of instants) {
    // A backfill re-runs what the schedule would have run: an excluded instant is recorded
    // SKIPPED (reason `excluded`), as the schedule itself records it.
    if (isExcluded(scheduledAtMs, exclusions)) {
      recordExcluded(state, job, [{ scheduledAtMs, fireAtMs: scheduledAtMs, excluded: true }], nowMs);
      skipped += 1;
      continue;
    }
    const { outcome } = startRun(
      state,
      job,
      { scheduledAtMs, fireAtMs: nowMs },
      "backfill",
      "backfill",
      nowMs,
    );
    if (outcome === "created" || outcome === "buffered") runIds.push(runIdFor(jobId, scheduledAtMs));
    else skipped += 1;
  }
  return { ok: true, created: runIds.length, skipped, runIds };
}

/**
 * The run to retry: live (a dead letter whose send is still pending) or revived from its history
 * record (a settled dead letter). Null when there is none.
 */
function retryableRun(state: ShardState, runId: string): Run | null {
  const live = state.runs.get(runId);
  if (live !== undefined) return live;
  const key = parseRunId(runId);
  const job = key === null ? undefined : state.jobs.get(key.jobId);
  if (key === null || job === undefined) return null;
  const record = findRecord(state, job.tenant_id, key.jobId, key.scheduledAtMs);
  if (record === null) return null;
  const events = JSON.parse(record.events_json) as Run["events"];
  const run: Run = {
    ...createdRun({
      jobId: record.job_id,
      tenantId: record.tenant_id,
      kind: record.kind as Run["kind"],
      scheduledAtMs: record.scheduled_at_ms,
      fireAtMs: record.scheduled_at_ms,
      maxAttempts: record.max_attempts,
      jobVersion: record.job_version,
      priority: job.priority,
      state: "SCHEDULED",
      dueAtMs: null,
      waiting: null,
      reason: "",
      nowMs: record.created_at_ms,
    }),
    state: record.state as Run["state"],
    attempt: record.attempt,
    fence: record.fence,
    target_status: record.target_status,
    error: record.error,
    lateness_ms: record.lateness_ms,
    duration_ms: record.duration_ms,
    updated_at_ms: record.updated_at_ms,
    accepted_at_ms: record.accepted_at_ms,
    heartbeat_at_ms: record.heartbeat_at_ms,
    result_json: record.result_json,
    held_ms: record.held_ms,
    held_by: record.held_by,
    triggers_folded: record.triggers_folded,
    events,
  };
  return run;
}

/**
 * A new attempt of a FAILED or DEAD_LETTERED run, same idempotency key, a fresh retry budget. A
 * paused job's run may be retried (it is marked manual, so dispatch lets it through); a deleted
 * job's may not. The dead-letter send columns start over too: a redriven run that dead-letters
 * again is sent at once, not after the backoff its earlier letter had built up.
 */
export function retryRunNow(state: ShardState, runId: string, nowMs: number): RetryResult {
  const run = retryableRun(state, runId);
  if (run === null) return { ok: false, code: "run_not_found" };
  if (run.state !== "DEAD_LETTERED" && run.state !== "FAILED")
    return { ok: false, code: "run_not_retryable" };
  const job = state.jobs.get(run.job_id);
  if (job === undefined || job.status === "DELETED") return { ok: false, code: "job_deleted" };
  if (!state.runs.has(runId)) {
    // Revived from history: its record there no longer counts in the stats (the run counts live).
    state.uncount(run.tenant_id, run.state, 1);
    state.addRun(run);
  }
  const attempt = run.attempt + 1;
  moveRun(state, run, "SCHEDULED", "manual retry", nowMs, {
    attempt,
    max_attempts: attempt + jobSpec(state, job).retry.max_attempts - 1,
    job_version: job.version,
    due_at_ms: nowMs,
    dispatch_count: 0,
    dlq_pending: 0,
    dlq_send_failures: 0,
    dlq_retry_at_ms: null,
    next_attempt_at_ms: null,
    manual: 1,
  });
  return { ok: true, runId, attempt };
}
