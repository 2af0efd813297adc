// A trigger's instant is its idempotency key: the first instant from now that no run of the job
// has, live or settled (two triggers in one millisecond get two instants a millisecond apart).
import { runIdFor } from "../../../src/core/runs/run-id";
import { instantTaken } from "../history/run-lookups";
import type { ShardState } from "../state/shard-state";

export function freeTriggerInstant(state: ShardState, jobId: string, nowMs: number): number {
  const job = state.jobs.get(jobId);
  let scheduledAtMs = nowMs;
  while (job !== undefined && instantTaken(state, job, runIdFor(jobId, scheduledAtMs), scheduledAtMs)) {
    scheduledAtMs += 1;
  }
  return scheduledAtMs;
}
