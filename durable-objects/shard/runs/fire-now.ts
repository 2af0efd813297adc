// Runs a job's waiting delivery now (QStash's "retry a message now"): a retry waiting out its
// backoff is made due now, or the job's next instant fires now. The instant stays the run's
// idempotency key (its scheduled time); only when it fires moves, so the delivery is the same
// run, never a second one, and the job's next instant after it is computed as before. Like every
// operator action it only puts work on the wheel; the alarm dispatches it.
import type { FireNowResult } from "../../../src/shard/protocol";
import { getJob, setJobTimer } from "../jobs/held-jobs";
import { noteRun, pendingRunsOfJob, runIdFor } from "./run-store";

export function fireJobNow(sql: SqlStorage, jobId: string, nowMs: number): FireNowResult {
  const job = getJob(sql, jobId);
  if (!job || job.status === "DELETED") return { ok: false, code: "job_not_found" };
  // A one-shot job is COMPLETED once its instant fired, while that run's retries still wait.
  if (job.status === "PAUSED") return { ok: false, code: "job_not_active" };
  const retrying = pendingRunsOfJob(sql, jobId).filter(
    (run) => run.state === "RETRYING" && run.due_at_ms !== null && run.due_at_ms > nowMs,
  );
  for (const run of retrying) {
    noteRun(sql, run, "retry moved to now by request", nowMs, {
      due_at_ms: nowMs,
      next_attempt_at_ms: nowMs,
    });
  }
  if (retrying.length > 0) return { ok: true, runIds: retrying.map((run) => run.run_id) };
  const scheduledAtMs = job.next_scheduled_ms;
  if (job.status !== "ACTIVE" || scheduledAtMs === null || job.next_fire_ms === null)
    return { ok: false, code: "nothing_waiting" };
  // Already sent ahead of its instant (within the dispatch lead): its run is on its way and fires
  // at the instant, moments from now; moving it would race the consumer holding it.
  if (job.next_fire_ms > nowMs && job.ahead_scheduled_ms !== scheduledAtMs)
    setJobTimer(sql, job, { scheduledAtMs, fireAtMs: nowMs });
  return { ok: true, runIds: [runIdFor(jobId, scheduledAtMs)] };
}
