// The shard's side of maintenance: overdue jobs (missed-run detection), poison messages, pruning
// terminal runs whose history record is written, and history past its retention.
import { durationMs } from "../../src/core/duration";
import { sqlInList, TERMINAL_STATES } from "../../src/core/run-state";
import type { OverdueJob, WatchdogReport } from "../../src/shard/protocol";
import { pruneHistory } from "./history-store";
import { type ShardJobRow, specOf } from "./job-store";
import { getRun, moveRun } from "./run-store";

const OVERDUE_SCAN_LIMIT = 200;
const PRUNE_BATCH = 5_000;
/** One missed-run alert per job per this long, however many instants it keeps missing. */
const MISSED_ALERT_REPEAT_MS = 10 * 60_000;

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
    if (overdueMs <= durationMs(specOf(job).alert_after)) continue;
    if (job.last_missed_alert_ms !== null && nowMs - job.last_missed_alert_ms < MISSED_ALERT_REPEAT_MS)
      continue;
    sql.exec("UPDATE jobs SET last_missed_alert_ms = ? WHERE job_id = ?", nowMs, job.job_id);
    overdue.push({
      jobId: job.job_id,
      tenantId: job.tenant_id,
      scheduledAtMs: job.next_scheduled_ms ?? job.next_fire_ms ?? nowMs,
      overdueMs,
    });
  }
  const pruned = sql.exec(
    `DELETE FROM runs WHERE run_id IN (
       SELECT run_id FROM runs WHERE due_at_ms IS NULL AND waiting IS NULL AND dirty = 0 AND dlq_pending = 0
         AND state IN ${sqlInList(TERMINAL_STATES)} AND updated_at_ms < ? LIMIT ?)`,
    nowMs - retention.runsMs,
    PRUNE_BATCH,
  ).rowsWritten;
  const historyPruned = pruneHistory(sql, nowMs - retention.historyMs, nowMs, PRUNE_BATCH);
  return { alarmAtMs, alarmRearmed: false, overdue, pruned, historyPruned };
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
