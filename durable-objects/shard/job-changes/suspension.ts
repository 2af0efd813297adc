// Tenant suspension on a shard. While a tenant is suspended no call of it starts: its jobs'
// timers are parked (the tick finds nothing of it due, so its backlog costs nothing), the runs
// it had handed out and not started are cancelled as a pause cancels them, and any claim of its
// runs is refused (the guarantee: whatever else fires meanwhile, a claim is where a call starts).
// Unsuspending puts the timers back, and each job's misfire policy and grace decide about the
// instants that passed, as after an outage.

import { fireDueJob, markCompleted } from "../instants/firing";
import { suspendedTenants } from "../jobs/suspended-tenants";
import { cancelPendingRuns } from "../runs/cancel-runs";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";

/** Suspends (true) or unsuspends the tenant here; returns how many of its jobs changed. */
export function setTenantSuspended(
  state: ShardState,
  tenantId: string,
  suspended: boolean,
  nowMs: number,
): number {
  const known = suspendedTenants(state) as Set<string>;
  if (suspended) {
    state.sql.exec(
      "INSERT OR IGNORE INTO suspended_tenants (tenant_id, suspended_at_ms) VALUES (?, ?)",
      tenantId,
      nowMs,
    );
    known.add(tenantId);
  } else {
    state.sql.exec("DELETE FROM suspended_tenants WHERE tenant_id = ?", tenantId);
    known.delete(tenantId);
  }
  const jobs = [...state.jobs.all()].filter((job) => job.tenant_id === tenantId && job.status !== "DELETED");
  for (const job of jobs) {
    if (suspended) parkJob(state, job, nowMs);
    else unparkJob(state, job, nowMs);
  }
  return jobs.length;
}

/** Parks one job of a suspended tenant: its timer kept aside, its runs not started cancelled. */
function parkJob(state: ShardState, job: JobRecord, nowMs: number): void {
  cancelPendingRuns(state, job.job_id, "tenant suspended", nowMs, { rewindTimer: true });
  if (job.next_fire_ms !== null) job.parked_fire_ms = job.next_fire_ms;
  job.next_fire_ms = null;
  state.touchJob(job);
}

function unparkJob(state: ShardState, job: JobRecord, nowMs: number): void {
  if (job.parked_fire_ms === null) return;
  job.next_fire_ms = job.parked_fire_ms;
  job.parked_fire_ms = null;
  state.touchJob(job);
  if (job.status !== "ACTIVE" || job.next_fire_ms > nowMs) return;
  // What passed while suspended went unnoticed: the misfire policy and its grace decide.
  fireDueJob(state, job, nowMs);
  if (job.next_fire_ms === null) markCompleted(state, job, nowMs);
}

/**
 * After a push: a job of a suspended tenant that the snapshot gave a timer again (an edit, a
 * resume) is parked again, so nothing of it fires until the tenant is unsuspended.
 */
export function reparkSuspended(
  state: ShardState,
  jobs: readonly { jobId: string; tenantId: string }[],
  nowMs: number,
): void {
  const suspended = suspendedTenants(state);
  if (suspended.size === 0) return;
  for (const { jobId, tenantId } of jobs) {
    const job = state.jobs.get(jobId);
    if (job !== undefined && suspended.has(tenantId) && job.next_fire_ms !== null) parkJob(state, job, nowMs);
  }
}
