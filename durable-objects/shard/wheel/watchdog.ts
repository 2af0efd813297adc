// The shard's side of maintenance: missed-run detection (timers that never fired, and runs whose
// dispatch fell behind their instant), poison messages, pruning terminal runs whose history
// record is written, and history past its retention.
import { durationMs } from "../../../src/core/duration";
import { sqlInList, UNCLAIMED_STATES } from "../../../src/core/run-state";
import type { OverdueJob, WatchdogReport } from "../../../src/shard/protocol";
import { pruneHistory } from "../history/records";
import { getJobs, type ShardJobRow, specOf } from "../jobs/held-jobs";
import { getRun, moveRun, type RunRow } from "../runs/run-store";
import { pruneSettledRuns } from "../runs/run-timers";
import { shareWaitsByTenant } from "../runs/share-wait";

const OVERDUE_SCAN_LIMIT = 200;
const PRUNE_BATCH = 5_000;
/** One missed-run alert per job per this long, however many instants it keeps missing. */
const MISSED_ALERT_REPEAT_MS = 10 * 60_000;
/** A run in these states has not reached a consumer yet: its dispatch is what may fall behind. */
const UNCLAIMED_STATES_AND_SCHEDULED = ["SCHEDULED", ...UNCLAIMED_STATES] as const;

export interface Retention {
  /** Terminal runs leave the wheel's table this long after their history record is written. */
  runsMs: number;
  /** History records of terminal runs are kept this long after the run was created. */
  historyMs: number;
}

export function watchdogScan(
  sql: SqlStorage,
  nowMs: number,
  retention: Retention,
  alarmAtMs: number | null,
): WatchdogReport {
  const overdue = overdueTimers(sql, nowMs);
  const alerted = new Set(overdue.map((job) => job.jobId));
  overdue.push(...lateDispatches(sql, nowMs).filter((late) => !alerted.has(late.jobId)));
  const pruned = pruneSettledRuns(sql, nowMs - retention.runsMs, PRUNE_BATCH);
  const historyPruned = pruneHistory(sql, nowMs - retention.historyMs, nowMs, PRUNE_BATCH);
  const shareWaits = shareWaitsByTenant(sql, nowMs);
  return { alarmAtMs, alarmRearmed: false, overdue, pruned, historyPruned, shareWaits };
}

/** Active jobs whose next instant never fired: the alarm stopped (lost, crashing, starved). */
function overdueTimers(sql: SqlStorage, nowMs: number): OverdueJob[] {
  const candidates = sql
    .exec<ShardJobRow>(
      "SELECT * FROM jobs WHERE status = 'ACTIVE' AND next_fire_ms < ? ORDER BY next_fire_ms LIMIT ?",
      nowMs - 1_000,
      OVERDUE_SCAN_LIMIT,
    )
    .toArray();
  const overdue: OverdueJob[] = [];
  for (const job of candidates) {
    const overdueMs = nowMs - (job.next_fire_ms ?? nowMs);
    if (overdueMs <= durationMs(specOf(job).alert_after) || recentlyAlerted(job, nowMs)) continue;
    noteAlerted(sql, job.job_id, nowMs);
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

/** A job's oldest first attempt that is still waiting for a consumer, read from the wheel. */
type WaitingRun = Pick<RunRow, "run_id" | "job_id" | "scheduled_at_ms" | "fire_at_ms" | "created_at_ms">;

/**
 * Jobs whose timer fired but whose run was never claimed by a consumer alert_after past its
 * instant: held back by the dispatch window, a throttle, a queue backlog or a lost message. The
 * timer check cannot see these (the timer moved on when the run was created), and a flood that
 * delays every run is exactly when they happen. Only first attempts count (a retry is late on
 * purpose), and never a run an operator asked for by hand or one waiting on its overlap policy.
 * Every run on the wheel has a due time, so this reads the wheel's index, not the history.
 */
function lateDispatches(sql: SqlStorage, nowMs: number): OverdueJob[] {
  const waiting = sql
    .exec<WaitingRun>(
      `SELECT job_id, run_id, scheduled_at_ms, MIN(fire_at_ms) AS fire_at_ms, created_at_ms FROM runs
       WHERE due_at_ms IS NOT NULL AND state IN ${sqlInList(UNCLAIMED_STATES_AND_SCHEDULED)}
         AND attempt = 1 AND manual = 0 AND waiting IS NULL AND fire_at_ms < ?
       GROUP BY job_id ORDER BY fire_at_ms LIMIT ?`,
      nowMs - 1_000,
      OVERDUE_SCAN_LIMIT,
    )
    .toArray();
  const jobs = getJobs(
    sql,
    waiting.map((run) => run.job_id),
  );
  const late: OverdueJob[] = [];
  for (const run of waiting) {
    const job = jobs.get(run.job_id);
    if (job?.status !== "ACTIVE" || recentlyAlerted(job, nowMs)) continue;
    const alertAfterMs = durationMs(specOf(job).alert_after);
    const overdueMs = nowMs - lateSinceMs(run, alertAfterMs);
    if (overdueMs <= alertAfterMs) continue;
    noteAlerted(sql, job.job_id, nowMs);
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
function lateSinceMs(run: WaitingRun, alertAfterMs: number): number {
  return run.created_at_ms - run.fire_at_ms > alertAfterMs ? run.created_at_ms : run.fire_at_ms;
}

function recentlyAlerted(job: ShardJobRow, nowMs: number): boolean {
  return job.last_missed_alert_ms !== null && nowMs - job.last_missed_alert_ms < MISSED_ALERT_REPEAT_MS;
}

function noteAlerted(sql: SqlStorage, jobId: string, nowMs: number): void {
  sql.exec("UPDATE jobs SET last_missed_alert_ms = ? WHERE job_id = ?", nowMs, jobId);
}

/** The queue gave up on a dispatch message: dead-letter the run if that dispatch is still current. */
export function deadLetterPoisonRun(
  sql: SqlStorage,
  runId: string,
  fence: number,
  reason: string,
  nowMs: number,
): boolean {
  const run = getRun(sql, runId);
  if (!run || run.fence !== fence) return false;
  if (run.state !== "ACQUIRED" && run.state !== "DISPATCHED") return false;
  moveRun(sql, run, "DEAD_LETTERED", reason, nowMs, {
    due_at_ms: null,
    dlq_pending: 1,
    dlq_reason: "poison",
  });
  return true;
}
