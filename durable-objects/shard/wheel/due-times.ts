// Reads what the shard's tables say is due next, for the alarm plan (./alarm-plan.ts).
import { nextAheadMs, nextJobTimerMs } from "../dispatch/ahead";
import { IN_FLIGHT_FLUSH_AFTER_MS } from "../write-behind";
import type { DueTimes } from "./alarm-plan";

/** `leadMs`: the dispatch lead window; a job's timer then needs the wheel that much early. */
export function readDueTimes(sql: SqlStorage, leadMs: number): DueTimes {
  const row = sql
    .exec<{
      run_ms: number | null;
      settled_ms: number | null;
      dlq_retry_ms: number | null;
      urgent: number;
    }>(
      `SELECT
         (SELECT MIN(due_at_ms) FROM runs WHERE due_at_ms IS NOT NULL) AS run_ms,
         (SELECT MIN(updated_at_ms) FROM runs
            WHERE dirty = 1 AND due_at_ms IS NOT NULL AND state <> 'SCHEDULED') AS settled_ms,
         (SELECT MIN(dlq_retry_at_ms) FROM runs WHERE dlq_pending = 1) AS dlq_retry_ms,
         (EXISTS (SELECT 1 FROM runs WHERE dirty = 1 AND due_at_ms IS NULL)
            OR EXISTS (SELECT 1 FROM runs WHERE dlq_pending = 1 AND dlq_retry_at_ms IS NULL)
            OR EXISTS (SELECT 1 FROM jobs WHERE status_dirty = 1)) AS urgent`,
    )
    .one();
  const aheadMs = nextAheadMs(sql, leadMs);
  const jobMs = nextJobTimerMs(sql);
  return {
    jobFireMs: jobMs === null || aheadMs === null ? (jobMs ?? aheadMs) : Math.min(jobMs, aheadMs),
    runDueMs: row.run_ms,
    inFlightFlushAtMs: row.settled_ms === null ? null : row.settled_ms + IN_FLIGHT_FLUSH_AFTER_MS,
    flushUrgent: Boolean(row.urgent),
    deadLetterRetryMs: row.dlq_retry_ms,
  };
}
