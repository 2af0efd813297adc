// The leases of runs in flight (src/core/run-leases.ts has the policy): renewed by the consumer
// holding them, in memory only, and cut short for every run in flight when the shard restarts.

import { durationMs } from "../../../src/core/duration";
import { renewedLeaseUntilMs, restartLeaseUntilMs } from "../../../src/core/run-leases";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../state/run";
import type { ShardState } from "../state/shard-state";
import { CLAIM_REASON } from "./claims";

/**
 * The consumer still holds these claimed runs: each lease, if still under the given fence, lasts
 * another RUNNING_LEASE_MS (capped by the call's timeout). Returns how many were renewed.
 */
export function renewLeases(
  state: ShardState,
  runs: readonly { runId: string; fence: number }[],
  nowMs: number,
): number {
  let renewed = 0;
  for (const { runId, fence } of runs) {
    const run = state.runs.get(runId);
    // A long-running target's lease is its heartbeat timeout: its own heartbeats renew it.
    if (run?.state !== "RUNNING" || run.fence !== fence || run.accepted_at_ms !== null) continue;
    if (run.due_at_ms === null) continue;
    const job = state.jobs.get(run.job_id);
    const timeoutMs = job === undefined ? 0 : durationMs(jobSpec(state, job).timeout);
    const untilMs = renewedLeaseUntilMs({
      nowMs,
      claimedAtMs: claimedAtMs(run) ?? nowMs,
      timeoutMs,
      leaseUntilMs: run.due_at_ms,
    });
    if (untilMs !== run.due_at_ms) state.holdLease(run, untilMs);
    renewed += 1;
  }
  return renewed;
}

/**
 * A shard that has just started (after a crash, a deploy or an eviction) cannot know which of its
 * runs in flight are still in a consumer's hands: each gets a short lease from now (see
 * restartLeaseUntilMs), so a run the crash lost is called again within seconds.
 */
export function leasesAfterRestart(state: ShardState, nowMs: number): number {
  let changed = 0;
  for (const run of state.runs.all()) {
    if (run.state !== "RUNNING" && run.state !== "ACQUIRED" && run.state !== "DISPATCHED") continue;
    if (run.due_at_ms === null || run.accepted_at_ms !== null) continue;
    const untilMs = restartLeaseUntilMs({
      state: run.state,
      restartMs: nowMs,
      fireAtMs: run.fire_at_ms,
      leaseUntilMs: run.due_at_ms,
    });
    if (untilMs === run.due_at_ms) continue;
    state.holdLease(run, untilMs);
    changed += 1;
  }
  return changed;
}

/** When the run's current attempt was claimed (its last RUNNING event). */
function claimedAtMs(run: Run): number | null {
  for (let index = run.events.length - 1; index >= 0; index--) {
    const event = run.events[index];
    if (event?.state === "RUNNING" && event.reason === CLAIM_REASON) return event.at_ms;
  }
  return null;
}
