// Outcomes: the decision after every attempt (succeeded, retry later in this same wheel, or
// dead-letter). Claims, the other half of at-most-once execution per fence, are in ./claims.ts.
import { retryDelayMs } from "../../../src/core/backoff";
import { windowAdmitMs } from "../../../src/core/delivery-window";
import type { JobSpec } from "../../../src/core/job-spec";
import { windowOf } from "../../../src/core/job-timeline";
import { longRunningSettingsOf } from "../../../src/core/long-running";
import type { FailedOutcome, TargetOutcome } from "../../../src/core/outcome";
import { retryDelayFromExpressionMs } from "../../../src/core/retry-delay-expression";
import { overlapReleaseReason } from "../../../src/core/run-waits";
import type { OutcomeReport, OutcomeResult } from "../../../src/shard/protocol";
import { getJobHeads, type JobHead, specOf } from "../jobs/held-jobs";
import { cancelPendingRuns } from "../jobs/job-sync";
import { inRequestOrder } from "./run-batches";
import { countInFlight, getRuns, moveRun, noteRun, RUN_COLUMNS, type RunRow } from "./run-store";
import { type FencedSuccess, type Success, settleSucceeded } from "./settle";
import { runSettled } from "./settled-instants";

/** Extra time past a run's timeout before its lease expires and the attempt counts as failed. */
export const RUNNING_LEASE_GRACE_MS = 15_000;

/** Runs and jobs a consumer batch names, read in two statements instead of two per run. */
export interface BatchRows {
  runs: Map<string, RunRow>;
  jobs: Map<string, JobHead>;
}

/** What returning the permits of a batch's finished runs needs of them (flow-permits.ts). */
export interface PermitRows {
  runs: Map<string, Pick<RunRow, "run_id" | "job_id" | "tenant_id" | "due_at_ms">>;
  jobs: Map<string, JobHead>;
}

/** The runs, and the heads of their jobs; `knownJobs` (read a moment ago) are not read again. */
export function readBatch(
  sql: SqlStorage,
  runIds: readonly string[],
  knownJobs: ReadonlyMap<string, JobHead> = new Map(),
): BatchRows {
  const runs = getRuns(sql, runIds);
  const missing = [...runs.values()].flatMap((run) => (knownJobs.has(run.job_id) ? [] : [run.job_id]));
  const jobs = new Map([...knownJobs, ...getJobHeads(sql, missing)]);
  return { runs, jobs };
}

export interface OutcomeEffects {
  /** Jobs this outcome paused (pause_after_failures reached). */
  pausedJobs: string[];
  /** The batch's runs and jobs (as the outcomes left them): what returning permits needs. */
  rows?: PermitRows;
}

export function reportOutcomes(
  sql: SqlStorage,
  reports: readonly OutcomeReport[],
  nowMs: number,
  effects: OutcomeEffects,
  random: () => number,
): OutcomeResult[] {
  const fast = succeedReadyReports(sql, reports, nowMs);
  const rest = reports.filter((_, index) => !fast.results.has(index));
  const rows = readBatch(
    sql,
    rest.map((report) => report.runId),
    fast.rows.jobs,
  );
  const succeeded: Success[] = [];
  const context: ReportContext = { rows, sql, nowMs, effects, random, succeeded };
  const restResults = rest.map((report) => reportOutcome(context, report));
  settleSucceeded(sql, succeeded, nowMs, { fenced: false });
  effects.rows = { runs: new Map([...fast.rows.runs, ...rows.runs]), jobs: rows.jobs };
  return inRequestOrder(reports.length, fast.results, restResults);
}

/**
 * The fast path: plain successes of runs whose job needs nothing but the move (no failure streak
 * to end, no buffered run to release) are moved in one statement without reading the runs. A run
 * the statement did not move (another fence, no longer RUNNING, reported twice) is left for the
 * path that reads its row and says why. Reports without a job id take that path too.
 */
function succeedReadyReports(
  sql: SqlStorage,
  reports: readonly OutcomeReport[],
  nowMs: number,
): { results: Map<number, OutcomeResult>; rows: PermitRows } {
  const jobs = getJobHeads(
    sql,
    reports.flatMap((report) => (report.jobId === undefined ? [] : [report.jobId])),
  );
  const seen = new Set<string>();
  const ready: FencedSuccess[] = [];
  const indexOf = new Map<string, number>();
  reports.forEach((report, index) => {
    const job = report.jobId === undefined ? undefined : jobs.get(report.jobId);
    if (job === undefined || report.outcome.kind !== "success" || seen.has(report.runId)) return;
    seen.add(report.runId);
    if (!needsOnlyTheMove(job)) return;
    ready.push({
      runId: report.runId,
      jobId: job.job_id,
      fence: report.fence,
      reason: successReason(report.outcome),
      targetStatus: report.outcome.status,
      durationMs: report.outcome.durationMs,
    });
    indexOf.set(report.runId, index);
  });
  const results = new Map<number, OutcomeResult>();
  const runs = new Map<string, Pick<RunRow, "run_id" | "job_id" | "tenant_id" | "due_at_ms">>();
  for (const row of settleSucceeded(sql, ready, nowMs, { fenced: true })) {
    results.set(indexOf.get(row.run_id) as number, { ok: true, runId: row.run_id, state: "SUCCEEDED" });
    runs.set(row.run_id, row);
  }
  return { results, rows: { runs, jobs } };
}

interface ReportContext {
  rows: BatchRows;
  sql: SqlStorage;
  nowMs: number;
  effects: OutcomeEffects;
  random: () => number;
  /** Plain successes, settled together once the batch is decided (./settle.ts). */
  succeeded: Success[];
}

function reportOutcome(
  { rows, sql, nowMs, effects, random, succeeded }: ReportContext,
  report: OutcomeReport,
): OutcomeResult {
  const run = rows.runs.get(report.runId);
  if (!run) {
    // A run reported again after it settled (in this batch or before) is no longer running.
    const settled = runSettled(sql, report.runId, report.jobId);
    return { ok: false, runId: report.runId, code: settled ? "not_running" : "unknown_run" };
  }
  if (run.fence !== report.fence) return { ok: false, runId: run.run_id, code: "stale_fence" };
  if (run.state !== "RUNNING") return { ok: false, runId: run.run_id, code: "not_running" };
  const job = rows.jobs.get(run.job_id) ?? null;
  const { outcome } = report;
  if (outcome.kind === "accepted") return acceptAsyncWork(sql, job, run, outcome.status, nowMs);
  if (outcome.kind === "success") {
    const reason = successReason(outcome);
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

function successReason(outcome: Extract<TargetOutcome, { kind: "success" }>): string {
  return outcome.detail ?? `target answered ${outcome.status}`;
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
  // A retry never starts outside the job's delivery window: one due there waits for the opening.
  const retryAtMs = windowAdmitMs(windowOf(spec), nowMs + delayMs);
  const waits =
    retryAtMs > nowMs + delayMs
      ? `, then waits for the window to open at ${new Date(retryAtMs).toISOString()}`
      : "";
  moveRun(
    sql,
    run,
    "RETRYING",
    `attempt ${run.attempt} of ${run.max_attempts} failed; retry in ${delayMs} ms${waits}`,
    nowMs,
    {
      due_at_ms: retryAtMs,
      next_attempt_at_ms: retryAtMs,
    },
  );
  return { ok: true, runId: run.run_id, state: "RETRYING", nextAttemptAtMs: retryAtMs };
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
  if (!next) return;
  const policy = job === null ? "buffer" : specOf(job).overlap;
  noteRun(sql, next, overlapReleaseReason(policy), nowMs, { waiting: null, due_at_ms: nowMs });
  // How long the buffer held it past its fire time: its job's part of its lateness.
  sql.exec(
    `UPDATE runs SET held_ms = MAX(COALESCE(held_ms, 0), ? - fire_at_ms), held_by = 'overlap'
     WHERE run_id = ? AND lateness_ms IS NULL`,
    nowMs,
    next.run_id,
  );
}
