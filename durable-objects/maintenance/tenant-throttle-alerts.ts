// One tenant-level alert while a tenant's due runs wait for its share of the dispatch window
// (issue 25 item 7): the flooding tenant learns why its runs are late. Raised once when the
// watchdog's reports first show the tenant's runs waiting past the grace on any shard, resolved
// (`throttle_ended`) at the first pass that finds none waiting anywhere.
import { listOpenTenantThrottledAlerts, resolveAlertsThrottleEnded } from "../../src/db/alerts";
import { raiseAlerts } from "../../src/service/raise-alerts";
import type { TenantShareWait } from "../../src/shard/protocol";

interface TenantWait {
  waitingRuns: number;
  oldestDueMs: number;
  shards: number;
}

/** Sums the shards' reports per tenant. */
export function tenantWaitsOf(reports: readonly (readonly TenantShareWait[])[]): Map<string, TenantWait> {
  const waits = new Map<string, TenantWait>();
  for (const report of reports) {
    for (const wait of report) {
      const sum = waits.get(wait.tenantId) ?? { waitingRuns: 0, oldestDueMs: wait.oldestDueMs, shards: 0 };
      sum.waitingRuns += wait.waitingRuns;
      sum.oldestDueMs = Math.min(sum.oldestDueMs, wait.oldestDueMs);
      sum.shards += 1;
      waits.set(wait.tenantId, sum);
    }
  }
  return waits;
}

/**
 * Raises the alert of each tenant throttled now with none open, and resolves the open ones of
 * tenants no longer throttled. `complete`: every shard reported (a shard that did not may hold
 * the tenant's waiting runs, so nothing is resolved from a partial view).
 */
export async function syncTenantThrottledAlerts(
  env: Env,
  waits: Map<string, TenantWait>,
  complete: boolean,
  nowMs: number,
): Promise<{ raised: number; resolved: number }> {
  const open = await listOpenTenantThrottledAlerts(env.DB);
  const openTenants = new Set(open.map((alert) => alert.tenantId));
  const fresh = [...waits].filter(([tenantId]) => !openTenants.has(tenantId));
  await raiseAlerts(
    env,
    fresh.map(([tenantId, wait]) => ({
      tenantId,
      jobId: null,
      runId: null,
      kind: "tenant_throttled" as const,
      dedupKey: `tenant_throttled:${tenantId}:${nowMs}`,
      message: `Tenant ${tenantId} is throttled by its share of the dispatch window: ${wait.waitingRuns} due runs wait on ${wait.shards} shard(s) while other tenants' work holds the rest`,
      details: {
        waiting_runs: wait.waitingRuns,
        shards: wait.shards,
        waiting_since: new Date(wait.oldestDueMs).toISOString(),
      },
    })),
  );
  const ended = complete ? open.filter((alert) => !waits.has(alert.tenantId)).map((alert) => alert.id) : [];
  const resolved = await resolveAlertsThrottleEnded(env.DB, ended, nowMs);
  return { raised: fresh.length, resolved };
}
