// Runs cancelled before their call: a delete, pause, edit or tenant suspend reached the shard while
// they were sent, or their claim found one. Sent, they may hold flow-control permits (a key's or
// their tenant's parallelism), which only an outcome returned; cancelled, they have none to report,
// so the permits stayed held until they expired, more than a minute later, and every other run of
// the key waited that long (a bulk delete of a flooding key's jobs left its next jobs 66 s late).
// The cancelling code notes them here; the RPC that cancelled them returns their permits, with
// their rate (no call was made), once its work is done (../shard-scheduler.ts, act). Best effort: a
// permit not returned still expires.

import type { Run } from "../records/run";
import type { ShardState } from "../state/shard-state";
import type { PermitRows } from "./permit-rows";

const noted = new WeakMap<ShardState, PermitRows>();

/**
 * Runs of this shard just cancelled while sent and not yet called, noted with what returning
 * their permits needs (a cancelled run leaves memory at the next commit).
 */
export function noteCancelledUncalled(state: ShardState, runs: readonly Run[]): void {
  if (runs.length === 0) return;
  let rows = noted.get(state);
  if (rows === undefined) {
    rows = { runs: new Map(), jobs: new Map() };
    noted.set(state, rows);
  }
  for (const run of runs) {
    rows.runs.set(run.run_id, {
      run_id: run.run_id,
      job_id: run.job_id,
      tenant_id: run.tenant_id,
      due_at_ms: null,
    });
    const job = state.jobs.get(run.job_id);
    if (job !== undefined) rows.jobs.set(job.job_id, job);
  }
}

/** The runs noted since the last call, whose permits go back now. */
export function takeCancelledUncalled(state: ShardState): PermitRows | null {
  const rows = noted.get(state);
  if (rows === undefined) return null;
  noted.delete(state);
  return rows;
}
