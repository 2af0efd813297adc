// The shard's side of maintenance: missed-run detection (timers that never fired, and runs whose
// dispatch fell behind their instant), poison messages, and history past its retention.
import { durationMs } from "../../../src/core/common/duration";
import { UNCLAIMED_STATES } from "../../../src/core/runs/run-state";
import type { OverdueJob, WatchdogReport } from "../../../src/shard/protocol";
import { pruneHistory } from "../history/prune";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import { shareWaitsByTenant } from "../runs/share-wait";
import type { JobRecord } from "../state/job-book";
import { moveRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

const OVERDUE_SCAN_LIMIT = 200;
const PRUNE_BATCH = 5_000;
/** One missed-run alert per job per this long, however many instants it keeps missing. */
const MISSED_ALERT_REPEAT_MS = 10 * 60_000;
/** A run in these states has not reached a consumer yet: its dispatch is what may fall behind. */
const UNCLAIMED_AND_SCHEDULED = new Set<string>(["SCHEDULED", ...UNCLAIMED_STATES]);

export interface Retention {
  /** Kept for the protocol: settled runs leave memory as they settle (nothing to prune there). */
  runsMs: number;
  /** History records of settled runs are kept this long. */
  historyMs: number;
}

export function watchdogScan(
  state: ShardState,
  nowMs: number,
  retention: Retention,
  alarmAtMs: number | null,
): WatchdogReport {
  const overdue = overdueTimers(state, nowMs);
  const alerted = new Set(overdue.map((job) => job.jobId));
  overdue.push(...lateDispatches(state, nowMs).filter((late) => !alerted.has(late.jobId)));
  const historyPruned = pruneHistory(state, nowMs - retention.historyMs, nowMs, PRUNE_BATCH);
  const shareWaits = shareWaitsByTenant(state, nowMs);
  return { alarmAtMs, alarmRearmed: false, overdue, pruned: 0, historyPruned, shareWaits };
}

/** Active jobs whose next instant never fired: the alarm stopped (lost, crashing, starved). */
function overdueTimers(state: ShardState, nowMs: number): OverdueJob[] {
  const overdue: OverdueJob[] = [];
  for (const job of state.jobs.overdue(nowMs - 1_000, OVERDUE_SCAN_LIMIT)) {
    const overdueMs = nowMs - (job.next_fire_ms ?? nowMs);
    if (overdueMs <= durationMs(jobSpec(state, job).alert_after) || recentlyAlerted(job, nowMs)) continue;
    noteAlerted(state, job, nowMs);
    overdue.push({
      jobId: job.job_id,
      tenantId: job.tenant_id,
      runId: null,
      scheduledAtMs: job.next_scheduled_ms ?? job.next_fire_ms ?? nowMs,
      overdueMs,
    });
  }
  return overdue;
}

/**
 * Jobs whose timer fired but whose run was never claimed by a consumer alert_after past its
 * instant: held back by the dispatch window, a throttle, a queue backlog or a lost message. The
 * timer check cannot see these (the timer moved on when the run was created), and a flood that
 * delays every run is exactly when they happen. Only first attempts count (a retry is late on
 * purpose), and never a run an operator asked for by hand or one waiting on its overlap policy.
 */
function lateDispatches(state: ShardState, nowMs: number): OverdueJob[] {
  const oldestByJob = new Map<string, Run>();
  for (const run of state.runs.dueRuns()) {
    if (!UNCLAIMED_AND_SCHEDULED.has(run.state) || run.attempt !== 1 || run.manual !== 0) continue;
    if (run.waiting !== null || run.fire_at_ms >= nowMs - 1_000) continue;
    const held = oldestByJob.get(run.job_id);
    if (held === undefined || run.fire_at_ms < held.fire_at_ms) oldestByJob.set(run.job_id, run);
  }
  const waiting = [...oldestByJob.values()]
    .sort((a, b) => a.fire_at_ms - b.fire_at_ms)
    .slice(0, OVERDUE_SCAN_LIMIT);
  const late: OverdueJob[] = [];
  for (const run of waiting) {
    const job = state.jobs.get(run.job_id);
    if (job?.status !== "ACTIVE" || recentlyAlerted(job, nowMs)) continue;
    const alertAfterMs = durationMs(jobSpec(state, job).alert_after);
    const overdueMs = nowMs - lateSinceMs(run, alertAfterMs);
    if (overdueMs <= alertAfterMs) continue;
    noteAlerted(state, job, nowMs);
    late.push({
      jobId: job.job_id,
      tenantId: job.tenant_id,
      runId: run.run_id,
      scheduledAtMs: run.scheduled_at_ms,
      overdueMs,
    });
  }
  return late;
}

/**
 * When a waiting run's lateness starts: its fire time, unless the run was created already later
 * than alert_after past it (a catch-up or a resume fires old instants on purpose): then from its
 * creation. A run created late by an overdue timer was already the timer check's to report.
 */
function lateSinceMs(run: Run, alertAfterMs: number): number {
  return run.created_at_ms - run.fire_at_ms > alertAfterMs ? run.created_at_ms : run.fire_at_ms;
}

function recentlyAlerted(job: JobRecord, nowMs: number): boolean {
  return job.last_missed_alert_ms !== null && nowMs - job.last_missed_alert_ms < MISSED_ALERT_REPEAT_MS;
}

function noteAlerted(state: ShardState, job: JobRecord, nowMs: number): void {
  job.last_missed_alert_ms = nowMs;
  state.touchJob(job);
}

/** The queue gave up on a dispatch message: dead-letter the run if that dispatch is still current. */
export function deadLetterPoisonRun(
  state: ShardState,
  runId: string,
  fence: number,
  reason: string,
  nowMs: number,
): boolean {
  const run = state.runs.get(runId);
  if (run === undefined || run.fence !== fence) return false;
  if (run.state !== "ACQUIRED" && run.state !== "DISPATCHED") return false;
  moveRun(state, run, "DEAD_LETTERED", reason, nowMs, {
    due_at_ms: null,
    dlq_pending: 1,
    dlq_reason: "poison",
  });
  return true;
}
