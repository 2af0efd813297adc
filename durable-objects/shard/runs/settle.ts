// A run whose attempt succeeded with nothing else to decide settles straight into its history
// record: the record is written as the row reads after the move (its SUCCEEDED event appended),
// and the row leaves `runs` in the same synchronous step, so nothing can see one without the other.
//
// Before, a success was an UPDATE of the row (moving it in every index on its state and timer),
// then the write-behind's copy of the row into its record, an UPDATE marking it copied, and a day
// later the row's DELETE: four writes of `runs` for what is now one DELETE and the record's
// INSERT. `runs` now holds what the wheel still has to act on, plus the few settled runs an
// operator may retry (failed, dead-lettered) or that need a write-behind (dead letters).
//
// A settled run's (job, instant) stays taken: insertRun refuses an instant that has a record, so
// the timer pass of an instant whose run went ahead and already settled does not run it again.
import { runIdFor } from "../../../src/core/run-id";
import { transition } from "../../../src/core/run-state";
import { recordSucceeded } from "../history/records";
import { releaseDeferredCompletions } from "../write-behind";

/** One run whose attempt succeeded, as the target answered. */
export interface Success {
  runId: string;
  reason: string;
  targetStatus: number | null;
  durationMs: number | null;
}

/** A success reported for a run at `fence`, of job `jobId` (as the consumer claimed it). */
export interface FencedSuccess extends Success {
  jobId: string;
  fence: number;
}

/** What returning a finished run's permits needs of it (../flow/flow-permits.ts). */
export type FinishedRunRow = { run_id: string; job_id: string; tenant_id: string; due_at_ms: number | null };

/**
 * RUNNING -> SUCCEEDED, settled: each run's history record written and its row deleted. With
 * `fenced` (the outcomes' fast path, which has not read the rows) only a run still RUNNING at the
 * reported fence and job moves; any other is left for the caller to decide on its row. Returns the
 * runs settled.
 */
export function settleSucceeded(
  sql: SqlStorage,
  runs: readonly (Success | FencedSuccess)[],
  nowMs: number,
  { fenced }: { fenced: boolean },
): FinishedRunRow[] {
  if (runs.length === 0) return [];
  transition("RUNNING", "SUCCEEDED");
  const batch = runs.map((run) => [
    run.runId,
    run.reason,
    run.targetStatus,
    run.durationMs,
    "fence" in run ? run.fence : null,
    "jobId" in run ? run.jobId : null,
  ]);
  const settled = recordSucceeded(sql, JSON.stringify(batch), nowMs, fenced).map((key) => ({
    run_id: runIdFor(key.job_id, key.scheduled_at_ms),
    job_id: key.job_id,
    tenant_id: key.tenant_id,
    due_at_ms: null,
  }));
  if (settled.length === 0) return [];
  sql.exec(
    "DELETE FROM runs WHERE run_id IN (SELECT value FROM json_each(?))",
    JSON.stringify(settled.map((run) => run.run_id)),
  );
  // A job that fired its last instant while this run lived may now read COMPLETED.
  releaseDeferredCompletions(sql, [...new Set(settled.map((run) => run.job_id))]);
  return settled;
}
