// Operator actions that create or revive runs: trigger now, backfill a range, manual retry.
// They only put runs on the wheel (due now); the alarm is the one path that dispatches.
import { backfillInstants, MAX_BACKFILL_INSTANTS } from "../../../src/core/backfill";
import { isExcluded } from "../../../src/core/exclusions";
import { schedulesOf } from "../../../src/core/schedule-set";
import type { BackfillResult, RetryResult, TriggerResult } from "../../../src/shard/protocol";
import { exclusionsOf, getJob, specOf } from "../jobs/held-jobs";
import { recordExcluded, startRun } from "../wheel/firing";
import { triggerDebounced } from "./debounce-windows";
import { freeTriggerInstant, getRun, moveRun, runIdFor } from "./run-store";

export { MAX_BACKFILL_INSTANTS };

/** A manual trigger; with the job's `debounce` it may fold into a run of the same key instead. */
export function triggerNow(
  sql: SqlStorage,
  jobId: string,
  nowMs: number,
  debounceKey?: string,
): TriggerResult {
  const job = getJob(sql, jobId);
  if (!job || job.status === "DELETED") return { ok: false, code: "job_not_found" };
  if (job.status === "PAUSED") return { ok: false, code: "job_not_active" };
  const debounce = specOf(job).debounce;
  if (debounce) return triggerDebounced(sql, job, debounce, debounceKey, nowMs);
  const scheduledAtMs = freeTriggerInstant(sql, jobId, nowMs);
  startRun(sql, job, { scheduledAtMs, fireAtMs: scheduledAtMs }, "trigger", "triggered manually", nowMs);
  return {
    ok: true,
    runId: runIdFor(jobId, scheduledAtMs),
    scheduledAtMs,
    fireAtMs: scheduledAtMs,
    folded: false,
  };
}

export function backfill(
  sql: SqlStorage,
  jobId: string,
  fromMs: number,
  toMs: number,
  nowMs: number,
): BackfillResult {
  const job = getJob(sql, jobId);
  if (!job || job.status === "DELETED") return { ok: false, code: "job_not_found" };
  if (job.status === "PAUSED") return { ok: false, code: "job_not_active" };
  // Never later than this shard's own now, whatever the caller checked: a future instant's key
  // is the real schedule's to take.
  const instants = backfillInstants(schedulesOf(specOf(job)), fromMs, toMs, nowMs);
  if (instants.length > MAX_BACKFILL_INSTANTS) return { ok: false, code: "too_many_instants" };
  const runIds: string[] = [];
  let skipped = 0;
  const exclusions = exclusionsOf(job);
  for (const scheduledAtMs of instants) {
    // A backfill re-runs what the schedule would have run: an excluded instant is recorded
    // SKIPPED (reason `excluded`), as the schedule itself records it.
    if (isExcluded(scheduledAtMs, exclusions)) {
      recordExcluded(sql, job, [{ scheduledAtMs, fireAtMs: scheduledAtMs, excluded: true }], nowMs);
      skipped += 1;
      continue;
    }
    const outcome = startRun(sql, job, { scheduledAtMs, fireAtMs: nowMs }, "backfill", "backfill", nowMs);
    if (outcome === "created" || outcome === "buffered") runIds.push(runIdFor(jobId, scheduledAtMs));
    else skipped += 1;
  }
  return { ok: true, created: runIds.length, skipped, runIds };
}

/**
 * A new attempt of a FAILED or DEAD_LETTERED run, same idempotency key, a fresh retry budget. A
 * paused job's run may be retried (it is marked manual, so dispatch lets it through); a deleted
 * job's may not. The dead-letter send columns start over too: a redriven run that dead-letters
 * again is sent at once, not after the backoff its earlier letter had built up.
 */
export function retryRunNow(sql: SqlStorage, runId: string, nowMs: number): RetryResult {
  const run = getRun(sql, runId);
  if (!run) return { ok: false, code: "run_not_found" };
  if (run.state !== "DEAD_LETTERED" && run.state !== "FAILED")
    return { ok: false, code: "run_not_retryable" };
  const job = getJob(sql, run.job_id);
  if (!job || job.status === "DELETED") return { ok: false, code: "job_deleted" };
  const attempt = run.attempt + 1;
  moveRun(sql, run, "SCHEDULED", "manual retry", nowMs, {
    attempt,
    max_attempts: attempt + specOf(job).retry.max_attempts - 1,
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
