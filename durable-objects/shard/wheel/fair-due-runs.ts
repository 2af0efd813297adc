// The due runs a tick reads, in fair order across tenants (src/core/load/fair-share.ts). The tick acts
// on them in this order, each tenant's share of the dispatch window (../dispatch/budget.ts) spent
// on its first ones: a tenant with one run due has it read, and sent, in the same tick as another
// tenant's backlog.
import { fairOrder, roundRobin, sharePerTenant } from "../../../src/core/load/fair-share";
import type { Run } from "../records/run";
import type { ShardState } from "../state/shard-state";

/** At most this many tenants get a share of one tick; the rest are read oldest first. */
const MAX_TENANTS_PER_TICK = 1_000;

/** Each tenant's runs by job priority (1 first), the order read kept within one priority. */
function byPriority(runs: Run[]): Run[] {
  return runs.some((run) => run.priority !== runs[0]?.priority)
    ? [...runs].sort((a, b) => a.priority - b.priority)
    : runs;
}

/**
 * Up to `limit` runs due at `nowMs`. When every due run fits, they are reordered round robin by
 * tenant, each tenant's by job priority. When more are due than fit, each tenant with work due
 * gets an equal share of the read (its runs by priority, then oldest), interleaved; what the
 * shares leave unused goes to the oldest runs overall.
 */
export function readDueRuns(state: ShardState, nowMs: number, limit: number): Run[] {
  const oldest = state.runs.oldestDue(nowMs, limit);
  const byTenant = (run: Run) => run.tenant_id;
  if (oldest.length < limit) return fairOrder(byPriority(oldest), byTenant);
  const tenants = state.runs.tenantsWithWorkDue(nowMs).slice(0, MAX_TENANTS_PER_TICK);
  if (tenants.length <= 1) {
    // One tenant under one priority (a lone tenant's burst): its due order is the oldest read.
    const tenantId = oldest[0]?.tenant_id;
    if (tenantId === undefined || !state.runs.hasSeveralDuePriorities(tenantId)) return oldest;
    return state.runs.tenantDue(tenantId, nowMs, limit);
  }
  const share = sharePerTenant(limit, tenants.length);
  const queues = tenants.map((tenant) => state.runs.tenantDue(tenant.tenantId, nowMs, share));
  const fair = roundRobin(queues).slice(0, limit);
  const taken = new Set(fair.map((run) => run.run_id));
  for (const run of oldest) {
    if (fair.length >= limit) break;
    if (!taken.has(run.run_id)) fair.push(run);
  }
  return fair;
}
