// Outcomes: the decision after every attempt (succeeded, retry later in this same wheel, or
// dead-letter). Claims, the other half of at-most-once execution per fence, are in ./claims.ts.

import type { JobSpec } from "../../../src/core/jobs/job-spec";
import { windowOf } from "../../../src/core/jobs/job-timeline";
import { overlapReleaseReason } from "../../../src/core/load/run-waits";
import { retryDelayMs } from "../../../src/core/runs/backoff";
import { longRunningSettingsOf } from "../../../src/core/runs/long-running";
import type { FailedOutcome, TargetOutcome } from "../../../src/core/runs/outcome";
import { retryDelayFromExpressionMs } from "../../../src/core/runs/retry-delay-expression";
import { parseRunId } from "../../../src/core/runs/run-id";
import { windowAdmitMs } from "../../../src/core/schedules/delivery-window";
import type { OutcomeReport, OutcomeResult } from "../../../src/shard/protocol";
import type { PermitRows } from "../flow/permit-rows";
import { settledStateOf } from "../history/run-lookups";
import { jobSpec, preloadSpecs } from "../jobs/job-specs";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import { moveRun, noteRun, type RunPatch } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { cancelPendingRuns } from "./cancel-runs";

export interface OutcomeEffects {
  /** Jobs this outcome paused (pause_after_failures reached). */
  pausedJobs: string[];
  /** The runs a batch reported, as the outcomes left them, and their jobs: what returning permits needs. */
  rows?: PermitRows;
}

export function reportOutcomes(
  state: ShardState,
  reports: readonly OutcomeReport[],
  nowMs: number,
  effects: OutcomeEffects,
  random: () => number,
): OutcomeResult[] {
  const rows: PermitRows = { runs: new Map(), jobs: new Map() };
  for (const report of reports) {
    const run = state.runs.get(report.runId);
    const job = run === undefined ? undefined : state.jobs.get(run.job_id);
    if (job !== undefined) rows.jobs.set(job.job_id, job);
  }
  preloadSpecs(state, rows.jobs.values());
  const results = reports.map((report) => {
    const run = state.runs.get(report.runId);
    if (run !== undefined) {
      rows.runs.set(run.run_id, {
        run_id: run.run_id,
        job_id: run.job_id,
        tenant_id: run.tenant_id,
        due_at_ms: null,
      });
    }
    const result = reportOutcome(state, report, nowMs, effects, random);
    const permitRun = rows.runs.get(report.runId);
    if (permitRun !== undefined && run !== undefined) permitRun.due_at_ms = run.due_at_ms;
    return result;
  });
  effects.rows = rows;
  return results;
}

function reportOutcome(
  state: ShardState,
  report: OutcomeReport,
  nowMs: number,
  effects: OutcomeEffects,
  random: () => number,
): OutcomeResult {
  const run = state.runs.get(report.runId);
  if (run === undefined) {
    // A run reported again after it settled (in this batch or before) is no longer running.
    const key = parseRunId(report.runId);
    const settled =
      key === null ? null : settledStateOf(state, report.runId, report.jobId ?? key.jobId, key.scheduledAtMs);
    return { ok: false, runId: report.runId, code: settled === null ? "unknown_run" : "not_running" };
  }
  if (run.fence !== report.fence) return { ok: false, runId: run.run_id, code: "stale_fence" };
  if (run.state !== "RUNNING") return { ok: false, runId: run.run_id, code: "not_running" };
  const job = state.jobs.get(run.job_id) ?? null;
  const { outcome } = report;
  if (outcome.kind === "accepted") return acceptAsyncWork(state, job, run, outcome.status, nowMs);
  if (outcome.kind === "success") {
    applySuccess(state, job, run, successReason(outcome), nowMs, {
      target_status: outcome.status,
      duration_ms: outcome.durationMs,
    });
    return { ok: true, runId: run.run_id, state: "SUCCEEDED" };
  }
  return applyFailure(state, job, run, outcome, nowMs, effects, random);
}

function successReason(outcome: Extract<TargetOutcome, { kind: "success" }>): string {
  return outcome.detail ?? `target answered ${outcome.status}`;
}

function specOrDefault(state: ShardState, job: JobRecord | null): Partial<JobSpec> {
  return job === null ? {} : jobSpec(state, job);
}

/** The target took the work on: the run stays RUNNING, its lease now the heartbeat timeout. */
function acceptAsyncWork(
  state: ShardState,
  job: JobRecord | null,
  run: Run,
  status: number,
  nowMs: number,
): OutcomeResult {
  const { heartbeatTimeoutMs } = longRunningSettingsOf(specOrDefault(state, job));
  // The call's own lease (timeout + grace) ends here. A heartbeat that raced ahead of this report
  // (a target heart-beats as soon as it answers) was sent earlier than now, so now plus the
  // heartbeat timeout is the later of the two; keeping the call's lease instead let a silent
  // target hold its run for the call's whole timeout.
  noteRun(state, run, `target accepted the work (${status}); waiting for it to report back`, nowMs, {
    due_at_ms: nowMs + heartbeatTimeoutMs,
    target_status: status,
    accepted_at_ms: nowMs,
  });
  return { ok: true, runId: run.run_id, state: "RUNNING" };
}

/** One attempt succeeded: the run is done, the job's failure streak ends, a buffered run may start. */
export function applySuccess(
  state: ShardState,
  job: JobRecord | null,
  run: Run,
  reason: string,
  nowMs: number,
  patch: Pick<RunPatch, "target_status" | "duration_ms" | "result_json">,
): void {
  moveRun(state, run, "SUCCEEDED", reason, nowMs, {
    due_at_ms: null,
    error: null,
    next_attempt_at_ms: null,
    ...patch,
  });
  if (job !== null && job.consecutive_failures !== 0) {
    job.consecutive_failures = 0;
    state.touchJob(job);
  }
  releaseBuffered(state, job, run.job_id, nowMs);
}

/**
 * One failed attempt: retry later as a timer in this wheel, or dead-letter. `lost`: the attempt
 * was lost on our side (its lease lapsed: the consumer holding it died), not failed by its target,
 * so its retry waits for no backoff.
 */
export function applyFailure(
  state: ShardState,
  job: JobRecord | null,
  run: Run,
  outcome: FailedOutcome,
  nowMs: number,
  effects: OutcomeEffects = { pausedJobs: [] },
  random: () => number = Math.random,
  { lost = false }: { lost?: boolean } = {},
): OutcomeResult {
  moveRun(state, run, "FAILED", outcome.error, nowMs, {
    due_at_ms: null,
    target_status: outcome.status,
    duration_ms: outcome.durationMs,
    error: outcome.error,
  });
  const jobGone = job === null || job.status === "DELETED";
  if (outcome.kind === "permanent" || run.attempt >= run.max_attempts || jobGone) {
    const reason = outcome.kind === "permanent" ? "permanent" : "exhausted";
    moveRun(state, run, "DEAD_LETTERED", describeDeadLetter(reason, run), nowMs, {
      dlq_pending: 1,
      dlq_reason: reason,
      next_attempt_at_ms: null,
    });
    if (job !== null) countDeadLetter(state, job, nowMs, effects);
    releaseBuffered(state, job, run.job_id, nowMs);
    return { ok: true, runId: run.run_id, state: "DEAD_LETTERED" };
  }
  const spec = jobSpec(state, job);
  const delayMs = lost ? 0 : nextRetryDelayMs(run.attempt, spec.retry, random, outcome.retryAfterMs);
  // A retry never starts outside the job's delivery window: one due there waits for the opening.
  const retryAtMs = windowAdmitMs(windowOf(spec), nowMs + delayMs);
  const waits =
    retryAtMs > nowMs + delayMs
      ? `, then waits for the window to open at ${new Date(retryAtMs).toISOString()}`
      : "";
  moveRun(
    state,
    run,
    "RETRYING",
    lost
      ? `attempt ${run.attempt} of ${run.max_attempts} lost; retry now${waits}`
      : `attempt ${run.attempt} of ${run.max_attempts} failed; retry in ${delayMs} ms${waits}`,
    nowMs,
    { due_at_ms: retryAtMs, next_attempt_at_ms: retryAtMs },
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

function describeDeadLetter(reason: "permanent" | "exhausted", run: Run): string {
  return reason === "permanent"
    ? "permanent failure: not retried"
    : `attempts exhausted (${run.attempt} of ${run.max_attempts})`;
}

function countDeadLetter(state: ShardState, job: JobRecord, nowMs: number, effects: OutcomeEffects): void {
  job.consecutive_failures += 1;
  state.touchJob(job);
  const limit = jobSpec(state, job).pause_after_failures;
  if (limit === null || job.consecutive_failures < limit || job.status !== "ACTIVE") return;
  // The shard pauses at once (stops dispatch); the write-behind carries PAUSED and the new version to D1.
  cancelPendingRuns(
    state,
    job.job_id,
    `job paused after ${job.consecutive_failures} consecutive dead-lettered runs`,
    nowMs,
  );
  job.status = "PAUSED";
  job.version += 1;
  job.paused_at_ms = nowMs;
  job.pause_reason = `paused after ${job.consecutive_failures} consecutive dead-lettered runs`;
  job.status_dirty = 1;
  state.touchJob(job);
  effects.pausedJobs.push(job.job_id);
}

/** With buffer_one / buffer_all, the oldest waiting run starts once nothing else is in flight. */
export function releaseBuffered(
  state: ShardState,
  job: JobRecord | null,
  jobId: string,
  nowMs: number,
): void {
  // Only buffer_one / buffer_all leave runs waiting; a job that never buffers has nothing to release.
  if (job !== null && !job.overlap.startsWith("buffer")) return;
  const runs = state.runs.ofJob(jobId);
  const busy = runs.some(
    (run) =>
      run.waiting === null && !["SUCCEEDED", "DEAD_LETTERED", "SKIPPED", "CANCELLED"].includes(run.state),
  );
  if (busy) return;
  const next = runs
    .filter((run) => run.waiting === "overlap" && run.state === "SCHEDULED")
    .sort((a, b) => a.scheduled_at_ms - b.scheduled_at_ms)[0];
  if (next === undefined) return;
  const policy = job === null ? "buffer" : job.overlap;
  // How long the buffer held it past its fire time: its job's part of its lateness.
  const held =
    next.lateness_ms === null
      ? { held_ms: Math.max(next.held_ms ?? 0, nowMs - next.fire_at_ms), held_by: "overlap" }
      : {};
  noteRun(state, next, overlapReleaseReason(policy), nowMs, { waiting: null, due_at_ms: nowMs, ...held });
}
