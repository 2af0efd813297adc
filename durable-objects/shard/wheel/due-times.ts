// Reads what the shard's state says is due next, for the alarm plan (./alarm-plan.ts).
import { nextAheadMs } from "../dispatch/ahead";
import type { ShardState } from "../state/shard-state";
import type { DueTimes } from "./alarm-plan";

/** `leadMs`: the dispatch lead window; a job's timer then needs the wheel that much early. */
export function readDueTimes(state: ShardState, leadMs: number): DueTimes {
  const aheadMs = nextAheadMs(state, leadMs);
  const jobMs = state.jobs.earliestTimerMs();
  let deadLetterRetryMs: number | null = null;
  let deadLetterNow = false;
  for (const run of state.runs.pendingDeadLetters()) {
    if (run.dlq_retry_at_ms === null) deadLetterNow = true;
    else if (deadLetterRetryMs === null || run.dlq_retry_at_ms < deadLetterRetryMs)
      deadLetterRetryMs = run.dlq_retry_at_ms;
  }
  let statusDirty = false;
  for (const job of state.jobs.dirtyStatuses()) if (job.status_dirty === 1) statusDirty = true;
  return {
    jobFireMs: jobMs,
    aheadFireMs: aheadMs,
    runDueMs: state.runs.earliestDueMs(),
    inFlightFlushAtMs: null,
    flushUrgent: deadLetterNow || statusDirty,
    deadLetterRetryMs,
    inFlight: state.runs.windowCounts().size > 0,
  };
}
