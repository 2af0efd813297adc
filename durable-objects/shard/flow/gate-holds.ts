// A run held at a flow gate: its timer set to its next ask outside a state change, and its hold ended early.

import type { ShardState } from "../state/shard-state";

/** How a run held at a flow gate is recorded: its next ask, the gate, why, and what held it. */
export interface GateHold {
  runId: string;
  dueAtMs: number;
  gate: string;
  reason: string;
  heldBy: "tenant_limits" | "flow_control" | "host_throttled";
}

/**
 * A refused run waits for its next ask, noting the gate it waits on (so the gate can wake it). Its
 * first wait on this gate is a history event (once, not per ask), and how long the gate holds it
 * past its fire time counts in its lateness split (src/core/load/run-waits.ts).
 */
export function holdAtGate(state: ShardState, hold: GateHold, nowMs: number): void {
  const run = state.runs.get(hold.runId);
  if (run === undefined || run.state !== "SCHEDULED") return;
  const firstWaitHere = run.flow_gate !== hold.gate;
  state.changeRun(run, (changed) => {
    changed.due_at_ms = hold.dueAtMs;
    if (changed.lateness_ms === null) {
      const heldMs = hold.dueAtMs - changed.fire_at_ms;
      if (heldMs > (changed.held_ms ?? 0)) changed.held_by = hold.heldBy;
      changed.held_ms = Math.max(changed.held_ms ?? 0, heldMs);
    }
    if (firstWaitHere) {
      changed.flow_gate = hold.gate;
      changed.events.push({
        state: changed.state,
        at_ms: nowMs,
        reason: hold.reason,
        attempt: changed.attempt,
      });
    }
  });
}

/** The gate has permits again: up to `count` of the runs waiting on it ask now. Returns how many. */
export function endGateHolds(state: ShardState, gate: string, count: number, nowMs: number): number {
  const waiting = state.runs
    .waitingAt(gate)
    .filter((run) => run.due_at_ms !== null && run.due_at_ms > nowMs)
    .sort((a, b) => (a.due_at_ms as number) - (b.due_at_ms as number))
    .slice(0, count);
  for (const run of waiting) {
    // The hold ends now, sooner than its planned ask: the run's lateness split counts it so.
    state.changeRun(run, (changed) => {
      changed.due_at_ms = nowMs;
      if (changed.lateness_ms === null) changed.held_ms = Math.max(0, nowMs - changed.fire_at_ms);
    });
  }
  return waiting.length;
}

/** Runs waiting at `gate` here other than `asking`: the rest of this shard's entry in the gate's wait list. */
export function waitingAtGate(
  state: ShardState,
  gate: string,
  asking: readonly { run_id: string }[],
  nowMs: number,
): number {
  const askingIds = new Set(asking.map((run) => run.run_id));
  return state.runs
    .waitingAt(gate)
    .filter((run) => run.due_at_ms !== null && run.due_at_ms > nowMs && !askingIds.has(run.run_id)).length;
}
