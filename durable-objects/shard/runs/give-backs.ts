// Runs a consumer gives back without calling them (src/delivery/batch-connections.ts),
// claimed (RUNNING) or not: back to SCHEDULED and due now, as if that send had not happened. The
// same attempt; its next send takes a new fence, and its lateness is measured at the claim that
// calls it. Only a run still at the fence it was sent with moves (one that moved on, or a
// long-running call its target accepted, is left alone).
import { moveRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

/** The SCHEDULED event of a run its consumer gave back without calling it. */
export const GIVEN_BACK_REASON = "given back before its call: its consumer had no connection free";

/** Returns the ids of the runs moved. */
export function giveBackRuns(
  state: ShardState,
  runs: readonly { runId: string; fence: number }[],
  nowMs: number,
): string[] {
  const moved: string[] = [];
  for (const { runId, fence } of runs) {
    const run = state.runs.get(runId);
    if (run === undefined || run.fence !== fence || run.accepted_at_ms !== null) continue;
    if (run.state !== "ACQUIRED" && run.state !== "DISPATCHED" && run.state !== "RUNNING") continue;
    moveRun(state, run, "SCHEDULED", GIVEN_BACK_REASON, nowMs, {
      due_at_ms: nowMs,
      dispatch_count: Math.max(0, run.dispatch_count - 1),
      slow_since_ms: null,
      lateness_ms: run.attempt === 1 ? null : run.lateness_ms,
    });
    moved.push(runId);
  }
  return moved;
}
