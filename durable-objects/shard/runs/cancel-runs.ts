// Cancelling a job's runs that have not started: a pause, an edit, a delete, a tenant suspended.
// Each is recorded CANCELLED with the reason, runs sent ahead of their instant included (they are
// listed with the job's runs and readable by id, like any other). A run sent ahead whose instant
// is still to come hands its instant back to the job's timer: a resume before the instant runs it
// then, as if nothing had gone ahead (its new run's record supersedes the cancelled one).
import { PENDING_STATES } from "../../../src/core/runs/run-state";
import { noteCancelledUncalled } from "../flow/uncalled-permits";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import { moveRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

const PENDING = new Set<string>(PENDING_STATES);

/** Whether a run went ahead of an instant that has not come: the job's timer still owns that instant. */
function aheadOfInstant(
  run: { kind: string; attempt: number; fire_at_ms: number; manual: number },
  nowMs: number,
) {
  return run.kind === "schedule" && run.attempt === 1 && run.manual === 0 && run.fire_at_ms > nowMs;
}

/**
 * Cancels every run of the job that has not started executing (running ones finish). Returns how
 * many. With `rewindTimer`, the earliest instant sent ahead is the job's next timer again.
 */
export function cancelPendingRuns(
  state: ShardState,
  jobId: string,
  reason: string,
  nowMs: number,
  { rewindTimer = false, onlyAhead = false }: { rewindTimer?: boolean; onlyAhead?: boolean } = {},
): number {
  const pending = state.runs
    .ofJob(jobId)
    .filter(
      (run) => PENDING.has(run.state) && run.state !== "FAILED" && (!onlyAhead || aheadOfInstant(run, nowMs)),
    );
  const job = state.jobs.get(jobId);
  const sent: Run[] = [];
  let rewindTo: { scheduledAtMs: number; fireAtMs: number } | null = null;
  for (const run of pending) {
    if (run.state === "ACQUIRED" || run.state === "DISPATCHED") sent.push(run);
    if (aheadOfInstant(run, nowMs) && (rewindTo === null || run.scheduled_at_ms < rewindTo.scheduledAtMs)) {
      rewindTo = { scheduledAtMs: run.scheduled_at_ms, fireAtMs: run.fire_at_ms };
    }
    if (job !== undefined && aheadOfInstant(run, nowMs) && job.run_count > 0) job.run_count -= 1;
    moveRun(state, run, "CANCELLED", reason, nowMs, {
      due_at_ms: null,
      waiting: null,
      next_attempt_at_ms: null,
    });
  }
  noteCancelledUncalled(state, sent);
  if (rewindTimer && job !== undefined && rewindTo !== null) rewindTimerTo(state, job, rewindTo);
  return pending.length;
}

/**
 * A job's new version hands back the instants sent ahead at the old one (their claims would be
 * refused as stale): cancelled, the instant goes out again at the new version.
 */
export function handBackAheadRuns(state: ShardState, jobId: string, version: number, nowMs: number): number {
  return cancelPendingRuns(state, jobId, `job changed (v${version}) before its instant`, nowMs, {
    rewindTimer: true,
    onlyAhead: true,
  });
}

function rewindTimerTo(
  state: ShardState,
  job: JobRecord,
  instant: { scheduledAtMs: number; fireAtMs: number },
): void {
  job.ahead_fire_ms = null;
  if (job.next_scheduled_ms !== null && job.next_scheduled_ms <= instant.scheduledAtMs) {
    state.touchJob(job);
    return;
  }
  job.next_scheduled_ms = instant.scheduledAtMs;
  job.next_fire_ms = instant.fireAtMs;
  if (job.fired_through_ms !== null && job.fired_through_ms >= instant.scheduledAtMs) {
    job.fired_through_ms = instant.scheduledAtMs - 1;
  }
  // A one-shot whose only instant went ahead completed when it fired: it has that instant again.
  if (job.status === "COMPLETED") {
    job.status = "ACTIVE";
    job.status_dirty = 0;
  }
  state.touchJob(job);
}
