// Runs a job's waiting delivery now (QStash's "retry a message now"): a retry waiting out its
// backoff is made due now, or the job's next instant fires now. The instant stays the run's
// idempotency key (its scheduled time); only when it fires moves, so the delivery is the same
// run, never a second one, and the job's next instant after it is computed as before. Like every
// operator action it only puts work on the wheel; the alarm dispatches it.
import { runIdFor } from "../../../src/core/runs/run-id";
import type { FireNowResult } from "../../../src/shard/protocol";
import { aheadFree } from "../state/job-book";
import { noteRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

export function fireJobNow(state: ShardState, jobId: string, nowMs: number): FireNowResult {
  const job = state.jobs.get(jobId);
  if (job === undefined || job.status === "DELETED") return { ok: false, code: "job_not_found" };
  // A one-shot job is COMPLETED once its instant fired, while that run's retries still wait.
  if (job.status === "PAUSED") return { ok: false, code: "job_not_active" };
  const retrying = state.runs
    .ofJob(jobId)
    .filter((run) => run.state === "RETRYING" && run.due_at_ms !== null && run.due_at_ms > nowMs);
  for (const run of retrying) {
    noteRun(state, run, "retry moved to now by request", nowMs, {
      due_at_ms: nowMs,
      next_attempt_at_ms: nowMs,
    });
  }
  if (retrying.length > 0) return { ok: true, runIds: retrying.map((run) => run.run_id) };
  // Already sent ahead of its instant (within the dispatch lead): its run is on its way and fires
  // at the instant, moments from now; moving it would race the consumer holding it.
  const ahead = state.runs
    .ofJob(jobId)
    .find((run) => run.kind === "schedule" && run.fire_at_ms > nowMs && run.state !== "RETRYING");
  if (ahead !== undefined) return { ok: true, runIds: [ahead.run_id] };
  const scheduledAtMs = job.next_scheduled_ms;
  if (job.status !== "ACTIVE" || scheduledAtMs === null || job.next_fire_ms === null)
    return { ok: false, code: "nothing_waiting" };
  if (job.next_fire_ms > nowMs && aheadFree(job, nowMs)) {
    job.next_fire_ms = nowMs;
    // Its end no longer follows from its spec: a one-shot fired now completes now, written so.
    job.completion_implied = false;
    state.touchJob(job);
  }
  return { ok: true, runIds: [runIdFor(jobId, scheduledAtMs)] };
}
