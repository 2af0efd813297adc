// Claims and outcomes: the authoritative side of at-most-once execution per fence, and the
// decision after every attempt (succeeded, retry later in this same wheel, or dead-letter).
import { retryDelayMs } from "../../src/core/backoff";
import { durationMs } from "../../src/core/duration";
import type { JobSpec } from "../../src/core/job-spec";
import { longRunningSettingsOf } from "../../src/core/long-running";
import type { FailedOutcome } from "../../src/core/outcome";
import { type QstashRunContext, qstashRunContextOf } from "../../src/core/qstash-delivery";
import { retryDelayFromExpressionMs } from "../../src/core/retry-delay-expression";
import { runIdempotencyKey } from "../../src/core/run-idempotency";
import { TERMINAL_STATES } from "../../src/core/run-state";
import type { ClaimRequest, ClaimResult, OutcomeReport, OutcomeResult } from "../../src/shard/protocol";
import { getJobHeads, type JobHead, specOf } from "./job-store";
import { cancelPendingRuns } from "./job-sync";
import { type ClaimStart, type Success, startClaimedRuns, succeedRuns } from "./run-batches";
import {
  countInFlight,
  getRuns,
  heldByPause,
  moveRun,
  noteRun,
  patchRun,
  RUN_COLUMNS,
  type RunRow,
} from "./run-store";

/** Extra time past a run's timeout before its lease expires and the attempt counts as failed. */
export const RUNNING_LEASE_GRACE_MS = 15_000;

const TERMINAL = new Set<string>(TERMINAL_STATES);

/** Runs and jobs a consumer batch names, read in two statements instead of two per run. */
export interface BatchRows {
  runs: Map<string, RunRow>;
  jobs: Map<string, JobHead>;
}

function readBatch(sql: SqlStorage, runIds: readonly string[]): BatchRows {
  const runs = getRuns(sql, runIds);
  const jobs = getJobHeads(
    sql,
    [...runs.values()].map((run) => run.job_id),
  );
  return { runs, jobs };
}

/**
 * Claims in order; a run named twice in one batch is claimed once (the row objects are shared and
 * a claimed one reads RUNNING at once). The claimed runs move to RUNNING in one statement.
 */
export function claimRuns(sql: SqlStorage, claims: readonly ClaimRequest[], nowMs: number): ClaimResult[] {
  const rows = readBatch(
    sql,
    claims.map((claim) => claim.runId),
  );
  const started: ClaimStart[] = [];
  const results = claims.map((claim) => claimRun(rows, sql, claim, nowMs, started));
  startClaimedRuns(sql, started, nowMs);
  return results;
}

function claimRun(
  rows: BatchRows,
  sql: SqlStorage,
  claim: ClaimRequest,
  nowMs: number,
  started: ClaimStart[],
): ClaimResult {
  const run = rows.runs.get(claim.runId);
  if (!run) return { ok: false, runId: claim.runId, code: "unknown_run" };
  if (run.fence !== claim.fence) return { ok: false, runId: run.run_id, code: "stale_fence" };
  if (run.state === "RUNNING" || TERMINAL.has(run.state))
    return { ok: false, runId: run.run_id, code: "duplicate" };
  if (run.state !== "ACQUIRED" && run.state !== "DISPATCHED") {
    return { ok: false, runId: run.run_id, code: "stale_fence" };
  }
  // Sent ahead of its instant, the run is held by the consumer until then; this is the guard that
  // keeps it so whatever the consumer's clock says. The run stays as it is (its lease re-sends it).
  if (run.fire_at_ms > nowMs) return { ok: false, runId: run.run_id, code: "not_due" };
  const job = rows.jobs.get(run.job_id);
  if (!job || job.status === "DELETED") {
    moveRun(sql, run, "CANCELLED", "job deleted", nowMs, { due_at_ms: null });
    return { ok: false, runId: run.run_id, code: "job_deleted" };
  }
  if (heldByPause(job.status, run)) {
    moveRun(sql, run, "CANCELLED", "job paused", nowMs, { due_at_ms: null });
    return { ok: false, runId: run.run_id, code: "job_paused" };
  }
  if (run.job_version !== job.version) {
    moveRun(
      sql,
      run,
      "CANCELLED",
      `job edited (run stamped v${run.job_version}, job is v${job.version})`,
      nowMs,
      {
        due_at_ms: null,
      },
    );
    return { ok: false, runId: run.run_id, code: "stale_version" };
  }
  const spec = specOf(job);
  const timeoutMs = durationMs(spec.timeout);
  // Written with the batch's other claims (startClaimedRuns); this row object reads RUNNING now.
  started.push({
    runId: run.run_id,
    dueAtMs: nowMs + timeoutMs + RUNNING_LEASE_GRACE_MS,
    latenessMs: Math.max(0, nowMs - run.fire_at_ms),
  });
  run.state = "RUNNING";
  return {
    ok: true,
    runId: run.run_id,
    jobId: run.job_id,
    tenantId: run.tenant_id,
    attempt: run.attempt,
    scheduledAtMs: run.scheduled_at_ms,
    idempotencyKey: runIdempotencyKey(run.job_id, run.scheduled_at_ms),
    target: spec.target,
    timeoutMs,
    latenessMs: Math.max(0, nowMs - run.fire_at_ms),
    retryOnStatus: spec.retry.retry_on_status,
    completion: longRunningSettingsOf(spec).completion,
    ...qstashClaimField(spec, job.created_at_ms),
  };
}

/** A /v2 job's claims carry what its QStash-format call and callbacks need; /v1 claims nothing. */
function qstashClaimField(spec: JobSpec, jobCreatedAtMs: number): { qstash?: QstashRunContext } {
  const qstash = qstashRunContextOf(spec, jobCreatedAtMs);
  return qstash === undefined ? {} : { qstash };
}

export interface OutcomeEffects {
  /** Jobs this outcome paused (pause_after_failures reached). */
  pausedJobs: string[];
  /** The rows the batch read (as the outcomes left them): what returning permits needs. */
  rows?: BatchRows;
}

export function reportOutcomes(
  sql: SqlStorage,
  reports: readonly OutcomeReport[],
  nowMs: number,
  effects: OutcomeEffects,
  random: () => number,
): OutcomeResult[] {
  const rows = readBatch(
    sql,
    reports.map((report) => report.runId),
  );
  effects.rows = rows;
  const succeeded: Success[] = [];
  const context: ReportContext = { rows, sql, nowMs, effects, random, succeeded };
  const results = reports.map((report) => reportOutcome(context, report));
  succeedRuns(sql, succeeded, nowMs);
  return results;
}

interface ReportContext {
  rows: BatchRows;
  sql: SqlStorage;
  nowMs: number;
  effects: OutcomeEffects;
  random: () => number;
  /** Plain successes, written together once the batch is decided (succeedRuns). */
  succeeded: Success[];
}

function reportOutcome(
  { rows, sql, nowMs, effects, random, succeeded }: ReportContext,
  report: OutcomeReport,
): OutcomeResult {
  const run = rows.runs.get(report.runId);
  if (!run) return { ok: false, runId: report.runId, code: "unknown_run" };
  if (run.fence !== report.fence) return { ok: false, runId: run.run_id, code: "stale_fence" };
  if (run.state !== "RUNNING") return { ok: false, runId: run.run_id, code: "not_running" };
  const job = rows.jobs.get(run.job_id) ?? null;
  const { outcome } = report;
  if (outcome.kind === "accepted") return acceptAsyncWork(sql, job, run, outcome.status, nowMs);
  if (outcome.kind === "success") {
    const reason = outcome.detail ?? `target answered ${outcome.status}`;
    if (job && needsOnlyTheMove(job)) {
      succeeded.push({
        runId: run.run_id,
        reason,
        targetStatus: outcome.status,
        durationMs: outcome.durationMs,
      });
      // The row object reads SUCCEEDED at once: the same run reported twice in a batch is refused.
      run.state = "SUCCEEDED";
    } else {
      applySuccess(sql, job, run, reason, nowMs, {
        target_status: outcome.status,
        duration_ms: outcome.durationMs,
      });
    }
    return { ok: true, runId: run.run_id, state: "SUCCEEDED" };
  }
  return applyFailure(sql, job, run, outcome, nowMs, effects, random);
}

/** A success that only moves the run: no failure streak to end, no buffered run to release. */
function needsOnlyTheMove(job: JobHead): boolean {
  return job.consecutive_failures === 0 && !specOf(job).overlap.startsWith("buffer");
}

/** The target took the work on: the run stays RUNNING, its lease now the heartbeat timeout. */
function acceptAsyncWork(
  sql: SqlStorage,
  job: JobHead | null,
  run: RunRow,
  status: number,
  nowMs: number,
): OutcomeResult {
  const { heartbeatTimeoutMs } = longRunningSettingsOf(job ? specOf(job) : {});
  // The call's own lease (timeout + grace) ends here. A heartbeat that raced ahead of this report
  // (a target heart-beats as soon as it answers) was sent earlier than now, so now plus the
  // heartbeat timeout is the later of the two; keeping the call's lease instead let a silent
  // target hold its run for the call's whole timeout.
  const leaseMs = nowMs + heartbeatTimeoutMs;
  noteRun(sql, run, `target accepted the work (${status}); waiting for it to report back`, nowMs, {
    due_at_ms: leaseMs,
    target_status: status,
    accepted_at_ms: nowMs,
  });
  return { ok: true, runId: run.run_id, state: "RUNNING" };
}

/** One attempt succeeded: the run is done, the job's failure streak ends, a buffered run may start. */
export function applySuccess(
  sql: SqlStorage,
  job: JobHead | null,
  run: RunRow,
  reason: string,
  nowMs: number,
  patch: { target_status?: number | null; duration_ms: number | null; result_json?: string | null },
): void {
  moveRun(sql, run, "SUCCEEDED", reason, nowMs, {
    due_at_ms: null,
    error: null,
    next_attempt_at_ms: null,
    ...patch,
  });
  if (job && job.consecutive_failures !== 0) {
    job.consecutive_failures = 0;
    sql.exec("UPDATE jobs SET consecutive_failures = 0 WHERE job_id = ?", job.job_id);
  }
  releaseBuffered(sql, job, run.job_id, nowMs);
}

/** One failed attempt: retry later as a timer in this wheel, or dead-letter. */
export function applyFailure(
  sql: SqlStorage,
  job: JobHead | null,
  run: RunRow,
  outcome: FailedOutcome,
  nowMs: number,
  effects: OutcomeEffects = { pausedJobs: [] },
  random: () => number = Math.random,
): OutcomeResult {
  moveRun(sql, run, "FAILED", outcome.error, nowMs, {
    due_at_ms: null,
    target_status: outcome.status,
    duration_ms: outcome.durationMs,
    error: outcome.error,
  });
  const jobGone = !job || job.status === "DELETED";
  if (outcome.kind === "permanent" || run.attempt >= run.max_attempts || jobGone) {
    const reason = outcome.kind === "permanent" ? "permanent" : "exhausted";
    moveRun(sql, run, "DEAD_LETTERED", describeDeadLetter(reason, run), nowMs, {
      dlq_pending: 1,
      dlq_reason: reason,
      next_attempt_at_ms: null,
    });
    if (job) countDeadLetter(sql, job, nowMs, effects);
    releaseBuffered(sql, job, run.job_id, nowMs);
    return { ok: true, runId: run.run_id, state: "DEAD_LETTERED" };
  }
  const spec = specOf(job);
  const delayMs = nextRetryDelayMs(run.attempt, spec.retry, random, outcome.retryAfterMs);
  moveRun(
    sql,
    run,
    "RETRYING",
    `attempt ${run.attempt} of ${run.max_attempts} failed; retry in ${delayMs} ms`,
    nowMs,
    {
      due_at_ms: nowMs + delayMs,
      next_attempt_at_ms: nowMs + delayMs,
    },
  );
  return { ok: true, runId: run.run_id, state: "RETRYING", nextAttemptAtMs: nowMs + delayMs };
}

/** The job's delay expression (QStash's Upstash-Retry-Delay) when it has one, else its backoff. */
function nextRetryDelayMs(
  attempt: number,
  retry: JobSpec["retry"],
  random: () => number,
  retryAfterMs: number | null,
): number {
  const fromExpressionMs =
    retry.delay_expression === undefined ? null : retryDelayFromExpressionMs(retry.delay_expression, attempt);
  return fromExpressionMs ?? retryDelayMs(attempt, retry.backoff, random, retryAfterMs);
}

function describeDeadLetter(reason: "permanent" | "exhausted", run: RunRow): string {
  return reason === "permanent"
    ? "permanent failure: not retried"
    : `attempts exhausted (${run.attempt} of ${run.max_attempts})`;
}

function countDeadLetter(sql: SqlStorage, job: JobHead, nowMs: number, effects: OutcomeEffects): void {
  job.consecutive_failures += 1;
  sql.exec("UPDATE jobs SET consecutive_failures = ? WHERE job_id = ?", job.consecutive_failures, job.job_id);
  const limit = specOf(job).pause_after_failures;
  if (limit === null || job.consecutive_failures < limit || job.status !== "ACTIVE") return;
  // The shard pauses at once (stops dispatch); the flush carries PAUSED and the new version to D1.
  cancelPendingRuns(
    sql,
    job.job_id,
    `job paused after ${job.consecutive_failures} consecutive dead-lettered runs`,
    nowMs,
  );
  job.status = "PAUSED";
  job.version += 1;
  sql.exec(
    "UPDATE jobs SET status = 'PAUSED', version = ?, paused_at_ms = ?, pause_reason = ?, status_dirty = 1 WHERE job_id = ?",
    job.version,
    nowMs,
    `paused after ${job.consecutive_failures} consecutive dead-lettered runs`,
    job.job_id,
  );
  effects.pausedJobs.push(job.job_id);
}

/** With buffer_one / buffer_all, the oldest waiting run starts once nothing else is in flight. */
export function releaseBuffered(sql: SqlStorage, job: JobHead | null, jobId: string, nowMs: number): void {
  // Only buffer_one / buffer_all leave runs waiting; a job that never buffers (or is gone, its
  // waiting runs cancelled) has nothing to release, and counting its runs costs a query per outcome.
  if (job !== null && !specOf(job).overlap.startsWith("buffer")) return;
  if (countInFlight(sql, jobId).inFlight > 0) return;
  const next = sql
    .exec<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE job_id = ? AND waiting = 'overlap' AND state = 'SCHEDULED' ORDER BY scheduled_at_ms LIMIT 1`,
      jobId,
    )
    .toArray()[0];
  if (next) patchRun(sql, next, nowMs, { waiting: null, due_at_ms: nowMs });
}
