// A (job, instant) is taken while it has a run: a live row in `runs`, or the history record of a
// run that settled and left `runs` (./settle.ts). One run per instant holds across both.
import { parseRunId, runIdFor } from "../../../src/core/run-id";

/**
 * Whether a run with no row here settled and left `runs` (./settle.ts): a second claim or report
 * of it is then a message delivered again, not one for a run never known. `jobId` when the caller
 * knows it (a run id alone names its job only for job ids made here).
 */
export function runSettled(sql: SqlStorage, runId: string, jobId?: string): boolean {
  const key = parseRunId(runId);
  if (key === null) return false;
  const job = jobId ?? key.jobId;
  return runIdFor(job, key.scheduledAtMs) === runId && instantTaken(sql, job, key.scheduledAtMs);
}

/** Whether the (job, instant) has a run: a live row, or a history record of one that settled. */
export function instantTaken(sql: SqlStorage, jobId: string, scheduledAtMs: number): boolean {
  return (
    sql
      .exec<{ taken: number }>(
        `SELECT EXISTS (SELECT 1 FROM runs WHERE job_id = ?1 AND scheduled_at_ms = ?2)
           OR EXISTS (SELECT 1 FROM run_history WHERE job_id = ?1 AND scheduled_at_ms = ?2) AS taken`,
        jobId,
        scheduledAtMs,
      )
      .one().taken === 1
  );
}
