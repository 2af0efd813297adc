// Tenant suspension on a shard. While a tenant is suspended no call of it starts: its jobs'
// timers are parked (the tick finds nothing of it due, so its backlog costs nothing), the runs
// it had handed out and not started are cancelled as a pause cancels them, and any claim of its
// runs is refused (the guarantee: whatever else fires meanwhile, a claim is where a call starts).
// Unsuspending puts the timers back and lets each job's misfire policy decide about the instants
// that passed, as resuming a paused job does.

import { fireDueJob, markCompleted } from "../wheel/firing";
import type { ShardJobRow } from "./held-jobs";
import { cancelPendingRuns } from "./job-sync";

/** The suspended tenants among these (one small table: a handful of rows at most). */
export function suspendedTenantsAmong(sql: SqlStorage, tenantIds: Iterable<string>): Set<string> {
  const ids = [...new Set(tenantIds)];
  if (ids.length === 0) return new Set();
  const rows = sql
    .exec<{ tenant_id: string }>(
      "SELECT tenant_id FROM suspended_tenants WHERE tenant_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    )
    .toArray();
  return new Set(rows.map((row) => row.tenant_id));
}

/** Suspends (true) or unsuspends the tenant here; returns how many of its jobs changed. */
export function setTenantSuspended(
  sql: SqlStorage,
  tenantId: string,
  suspended: boolean,
  nowMs: number,
): number {
  return suspended ? suspend(sql, tenantId, nowMs) : unsuspend(sql, tenantId, nowMs);
}

function suspend(sql: SqlStorage, tenantId: string, nowMs: number): number {
  sql.exec(
    "INSERT OR IGNORE INTO suspended_tenants (tenant_id, suspended_at_ms) VALUES (?, ?)",
    tenantId,
    nowMs,
  );
  const jobs = sql
    .exec<Pick<ShardJobRow, "job_id">>(
      "SELECT job_id FROM jobs WHERE tenant_id = ? AND status IN ('ACTIVE', 'PAUSED', 'COMPLETED')",
      tenantId,
    )
    .toArray();
  for (const job of jobs) parkJob(sql, job.job_id, tenantId, nowMs);
  return jobs.length;
}

/** Parks one job of a suspended tenant: its timer kept aside, its runs not started cancelled. */
export function parkJob(sql: SqlStorage, jobId: string, tenantId: string, nowMs: number): void {
  sql.exec(
    `INSERT OR REPLACE INTO parked_timers (job_id, tenant_id, next_fire_ms)
     SELECT job_id, tenant_id, next_fire_ms FROM jobs WHERE job_id = ? AND next_fire_ms IS NOT NULL`,
    jobId,
  );
  sql.exec("UPDATE jobs SET next_fire_ms = NULL WHERE job_id = ? AND tenant_id = ?", jobId, tenantId);
  cancelPendingRuns(sql, jobId, "tenant suspended", nowMs);
}

function unsuspend(sql: SqlStorage, tenantId: string, nowMs: number): number {
  sql.exec("DELETE FROM suspended_tenants WHERE tenant_id = ?", tenantId);
  sql.exec(
    `UPDATE jobs SET next_fire_ms = (SELECT next_fire_ms FROM parked_timers WHERE parked_timers.job_id = jobs.job_id)
     WHERE job_id IN (SELECT job_id FROM parked_timers WHERE tenant_id = ?) AND next_fire_ms IS NULL
       AND status <> 'DELETED'`,
    tenantId,
  );
  const jobs = sql
    .exec<ShardJobRow>(
      "SELECT * FROM jobs WHERE job_id IN (SELECT job_id FROM parked_timers WHERE tenant_id = ?)",
      tenantId,
    )
    .toArray();
  sql.exec("DELETE FROM parked_timers WHERE tenant_id = ?", tenantId);
  for (const job of jobs) {
    if (job.status !== "ACTIVE" || job.next_fire_ms === null || job.next_fire_ms > nowMs) continue;
    // What passed while suspended is missed: the misfire policy decides, whatever the grace.
    fireDueJob(sql, job, nowMs, "resume");
    if (job.next_fire_ms === null) markCompleted(sql, job);
  }
  return jobs.length;
}

/**
 * After a push: a job of a suspended tenant that the snapshot gave a timer again (an edit, a
 * resume) is parked again, so nothing of it fires until the tenant is unsuspended.
 */
export function reparkSuspended(
  sql: SqlStorage,
  jobs: readonly { jobId: string; tenantId: string }[],
  nowMs: number,
): void {
  const suspended = suspendedTenantsAmong(
    sql,
    jobs.map((job) => job.tenantId),
  );
  if (suspended.size === 0) return;
  for (const job of jobs) if (suspended.has(job.tenantId)) parkJob(sql, job.jobId, job.tenantId, nowMs);
}
