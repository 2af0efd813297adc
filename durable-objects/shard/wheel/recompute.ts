// Re-deriving one job's next fire from what it already handled: after a tz database change, and
// for anything else that changes a job's instants without a new job version (a calendar edit).
import { firstFire, type JobFire, upcomingFires } from "../../../src/core/jobs/job-timeline";
import { markCompleted } from "../instants/firing";
import { jobExclusions, jobSpec } from "../jobs/job-specs";
import { cancelPendingRuns } from "../runs/cancel-runs";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";

export type RecomputeOutcome =
  /** The timer moved to the instant the schedule gives now. */
  | "changed"
  | "unchanged"
  /** The timer is due (or its instant is being fired): the tick owns it, it stays as it is. */
  | "kept_due"
  /** No timer to re-derive (completed, deleted), or no record of what was handled: kept. */
  | "kept";

/**
 * Recomputes the job's next fire with the schedule's current rules, from the last instant the
 * shard handled (never from now: an instant between then and now would be missed). A timer already
 * due is left to the tick, so nothing fires twice; a re-derived instant already past is found by
 * the next tick and goes through the misfire policy, so nothing is missed.
 */
export function recomputeNextFire(state: ShardState, job: JobRecord, nowMs: number): RecomputeOutcome {
  if (job.status !== "ACTIVE" && job.status !== "PAUSED") return "kept";
  if (job.next_fire_ms === null || job.next_scheduled_ms === null) return "kept";
  if (job.next_fire_ms <= nowMs) return "kept_due";
  // A run sent ahead of an instant to come hands it back first: the new rules decide it again.
  const aheadRuns = state.runs
    .ofJob(job.job_id)
    .filter((run) => run.kind === "schedule" && run.fire_at_ms > nowMs);
  if (aheadRuns.length > 0) {
    cancelPendingRuns(state, job.job_id, "its instant was derived again", nowMs, { rewindTimer: true });
  }
  const handledThroughMs = job.fired_through_ms;
  if (handledThroughMs === null && job.run_count > 0) return "kept";
  const spec = jobSpec(state, job);
  const exclusions = jobExclusions(state, job);
  const next: JobFire | null =
    handledThroughMs === null
      ? firstFire(spec, job.job_id, job.created_at_ms, exclusions)
      : (upcomingFires(spec, job.job_id, handledThroughMs, 1, exclusions)[0] ?? null);
  if (next?.scheduledAtMs === job.next_scheduled_ms && next.fireAtMs === job.next_fire_ms) return "unchanged";
  job.next_scheduled_ms = next?.scheduledAtMs ?? null;
  job.next_fire_ms = next?.fireAtMs ?? null;
  job.ahead_fire_ms = null;
  state.touchJob(job);
  if (next === null) markCompleted(state, job, nowMs);
  return "changed";
}
