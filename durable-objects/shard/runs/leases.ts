// The leases of runs in flight (src/core/runs/run-leases.ts has the policy): renewed by the consumer
// holding them, in memory only, and cut short for every run in flight when the shard restarts.

import { durationMs } from "../../../src/core/common/duration";
import {
  LEASE_RENEW_EVERY_MS,
  renewedLeaseUntilMs,
  restartLeaseUntilMs,
} from "../../../src/core/runs/run-leases";
import { logEvent } from "../../../src/log";
import type { LeaseRenewal } from "../../../src/shard/protocol";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import type { ShardState } from "../state/shard-state";
import { applyFailure } from "./attempt-outcomes";
import { CLAIM_REASON } from "./claims";

/**
 * The consumer still holds these claimed runs: each lease, if still under the given fence, lasts
 * another RUNNING_LEASE_MS (capped by the call's timeout). Returns how many were renewed.
 */
export function renewLeases(state: ShardState, runs: readonly LeaseRenewal[], nowMs: number): number {
  let renewed = 0;
  for (const { runId, fence, callStartedAtMs } of runs) {
    const run = state.runs.get(runId);
    // A long-running target's lease is its heartbeat timeout: its own heartbeats renew it.
    if (run?.state !== "RUNNING" || run.fence !== fence || run.accepted_at_ms !== null) continue;
    if (run.due_at_ms === null) continue;
    const job = state.jobs.get(run.job_id);
    const timeoutMs = job === undefined ? 0 : durationMs(jobSpec(state, job).timeout);
    const untilMs = renewedLeaseUntilMs({
      nowMs,
      // A consumer before this field renewed only runs it was calling: its claim is the start.
      callStartedAtMs: callStartedAtMs === undefined ? (claimedAtMs(run) ?? nowMs) : callStartedAtMs,
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

/**
 * A pass that finds a claimed run's lease lapsed this long ago ran late: the isolate was starved or
 * busy, and the consumer's renewals, late for the same reason, may be queued behind this very pass.
 */
const LATE_PASS_MS = LEASE_RENEW_EVERY_MS;
/** What a late pass gives such a lease, once per claim, for a renewal or the outcome to arrive. */
const LATE_PASS_GRACE_MS = 2 * LEASE_RENEW_EVERY_MS;
/** The fence under which each run was given that grace (memory only: a restart cuts leases anyway). */
const gracedFence = new WeakMap<Run, number>();

/** A claimed run whose lease lapsed: its attempt was lost (or its heartbeats stopped) and goes again. */
export function expireLapsedLease(state: ShardState, run: Run, nowMs: number): void {
  const lapsedForMs = nowMs - (run.due_at_ms ?? nowMs);
  if (run.accepted_at_ms === null && lapsedForMs > LATE_PASS_MS && gracedFence.get(run) !== run.fence) {
    // Called lost now, a run whose consumer is alive but was starved would be called twice. A dead
    // consumer costs its run LATE_PASS_GRACE_MS more; a starved one renews within it.
    gracedFence.set(run, run.fence ?? 0);
    state.holdLease(run, nowMs + LATE_PASS_GRACE_MS);
    return;
  }
  // A claimed run's lease lapses only when its consumer stopped renewing it (it died): the attempt
  // was lost, not failed by its target, and goes again now. A long-running target's lease is its
  // heartbeat timeout, renewed by each heartbeat: missing them is the target's failure.
  const lost = run.accepted_at_ms === null;
  // The evidence when a run is called twice: whose lease lapsed, and how late this pass found it.
  logEvent("run.lease_expired", {
    job_id: run.job_id,
    run_id: run.run_id,
    fence: run.fence,
    lease_until: new Date(run.due_at_ms ?? nowMs).toISOString(),
    late_ms: nowMs - (run.due_at_ms ?? nowMs),
  });
  applyFailure(
    state,
    state.jobs.get(run.job_id) ?? null,
    run,
    {
      kind: "retryable",
      status: null,
      error: lost
        ? "its consumer stopped renewing the lease (lost before an outcome)"
        : "no heartbeat or completion within the job's heartbeat_timeout (lease expired)",
      retryAfterMs: null,
      durationMs: 0,
    },
    nowMs,
    undefined,
    undefined,
    { lost },
  );
}
