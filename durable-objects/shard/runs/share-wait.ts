// Whether a tenant is throttled by its share of the dispatch window, for its stats and overview: a
// run of it that is due, not held by a flow gate or a limit, and still waiting in the shard past a
// pass's slack waits for room in the window, that is for its tenant's share (another tenant's work
// holds the rest). Read when asked, from the runs' own state: nothing is written while the shard is
// saturated.
import type { ShareWait } from "../../../src/shard/history-protocol";
import type { TenantShareWait } from "../../../src/shard/protocol";
import type { Run } from "../records/run";
import type { ShardState } from "../state/shard-state";

/**
 * A due run is counted once it has waited this long: a pass picks what is due every few hundred
 * milliseconds (the backpressure retry is 250 ms), so a run waiting longer waits for the window.
 */
export const SHARE_WAIT_GRACE_MS = 1_000;

function waitingForShare(run: Run, nowMs: number): boolean {
  return (
    run.state === "SCHEDULED" &&
    run.flow_gate === null &&
    run.due_at_ms !== null &&
    run.due_at_ms <= nowMs - SHARE_WAIT_GRACE_MS
  );
}

/** The tenant's (null: every tenant's) runs due and waiting for the window here, and the oldest. */
export function shareWaitOf(state: ShardState, tenantId: string | null, nowMs: number): ShareWait {
  let waitingRuns = 0;
  let oldestDueMs: number | null = null;
  for (const run of state.runs.dueRuns(tenantId ?? undefined)) {
    if (!waitingForShare(run, nowMs)) continue;
    waitingRuns += 1;
    const dueMs = run.due_at_ms as number;
    if (oldestDueMs === null || dueMs < oldestDueMs) oldestDueMs = dueMs;
  }
  return { waitingRuns, oldestDueMs };
}

/** Every tenant with runs waiting here for its share, the maintenance pass's view (tenant_throttled). */
export function shareWaitsByTenant(state: ShardState, nowMs: number): TenantShareWait[] {
  const byTenant = new Map<string, TenantShareWait>();
  for (const run of state.runs.dueRuns()) {
    if (!waitingForShare(run, nowMs)) continue;
    const dueMs = run.due_at_ms as number;
    const wait = byTenant.get(run.tenant_id) ?? {
      tenantId: run.tenant_id,
      waitingRuns: 0,
      oldestDueMs: dueMs,
    };
    wait.waitingRuns += 1;
    wait.oldestDueMs = Math.min(wait.oldestDueMs, dueMs);
    byTenant.set(run.tenant_id, wait);
  }
  return [...byTenant.values()];
}
