// A claimed run whose call the consumer still saw running a second after it started
// (src/core/runs/slow-calls.ts): noted on the run, so the tick can keep that tenant's runs in flight
// here to a few. Not a state change and not history: the run is RUNNING all along.
import { patchRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

/** Notes each run, if it is still RUNNING under the given fence; returns how many were noted. */
export function markSlowCalls(
  state: ShardState,
  runs: readonly { runId: string; fence: number }[],
  nowMs: number,
): number {
  let noted = 0;
  for (const { runId, fence } of runs) {
    const run = state.runs.get(runId);
    if (run === undefined || run.fence !== fence || run.state !== "RUNNING" || run.slow_since_ms !== null)
      continue;
    patchRun(state, run, nowMs, { slow_since_ms: nowMs });
    noted += 1;
  }
  return noted;
}

/** Calls per tenant reported slow and still running, lease holding. */
export function slowCallsByTenant(state: ShardState, nowMs: number): Map<string, number> {
  const byTenant = new Map<string, number>();
  for (const run of state.runs.slowRunning()) {
    if (run.accepted_at_ms !== null || run.due_at_ms === null || run.due_at_ms <= nowMs) continue;
    byTenant.set(run.tenant_id, (byTenant.get(run.tenant_id) ?? 0) + 1);
  }
  return byTenant;
}
