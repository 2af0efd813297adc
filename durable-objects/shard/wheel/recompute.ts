// Re-deriving one job's next fire from what it already handled: after a tz database change, and
// for anything else that changes a job's instants without a new job version (a calendar edit).
import { firstFire, type JobFire, upcomingFires } from "../../../src/core/job-timeline";
import { dropAheadRuns } from "../dispatch/ahead";
import { exclusionsOf, type ShardJobRow, setJobTimer, specOf } from "../jobs/held-jobs";
import { markCompleted } from "./firing";

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
export function recomputeNextFire(sql: SqlStorage, job: ShardJobRow, nowMs: number): RecomputeOutcome {
  if (job.status !== "ACTIVE" && job.status !== "PAUSED") return "kept";
  if (job.next_fire_ms === null || job.next_scheduled_ms === null) return "kept";
  if (job.next_fire_ms <= nowMs) return "kept_due";
  const handledThroughMs = handledThrough(sql, job, nowMs);
  if (handledThroughMs === undefined) return "kept";
  const spec = specOf(job);
  const exclusions = exclusionsOf(job);
  const next: JobFire | null =
    handledThroughMs === null
      ? firstFire(spec, job.job_id, job.created_at_ms, exclusions)
      : (upcomingFires(spec, job.job_id, handledThroughMs, 1, exclusions)[0] ?? null);
  if (next?.scheduledAtMs === job.next_scheduled_ms && next.fireAtMs === job.next_fire_ms) return "unchanged";
  setJobTimer(sql, job, next);
  // The instant queued ahead may not be the next one any more: the new timer decides again.
  dropAheadRuns(sql, job.job_id, nowMs);
  if (next === null) markCompleted(sql, job);
  return "changed";
}

/**
 * The last scheduled instant handled: the job's record of it, else (jobs from before that record)
 * its latest schedule run; null when it never fired (the schedule runs from creation); undefined
 * when it fired but the runs are pruned (unknown: keep the timer rather than guess).
 */
function handledThrough(sql: SqlStorage, job: ShardJobRow, nowMs: number): number | null | undefined {
  if (job.fired_through_ms !== null) return job.fired_through_ms;
  const latest = sql
    .exec<{ at_ms: number | null }>(
      // A run queued ahead of its instant (fire_at_ms still to come) was not handled yet.
      "SELECT MAX(scheduled_at_ms) AS at_ms FROM runs WHERE job_id = ? AND kind IN ('schedule', 'catch_up') AND fire_at_ms <= ?",
      job.job_id,
      nowMs,
    )
    .one().at_ms;
  if (latest !== null) return latest;
  return job.run_count === 0 ? null : undefined;
}
