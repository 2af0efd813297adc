// Runs cancelled before their call: a delete, pause, edit or tenant suspend reached the shard while
// they were sent, or their claim found one. Sent, they may hold flow-control permits (a key's or
// their tenant's parallelism), which only an outcome returned; cancelled, they have none to report,
// so the permits stayed held until they expired, more than a minute later, and every other run of
// the key waited that long (a bulk delete of a flooding key's jobs left its next jobs 66 s late).
// The cancelling code notes them here; the RPC that cancelled them returns their permits, with
// their rate (no call was made), once its work is done (../shard-scheduler.ts, act). Best effort: a
// permit not returned still expires.

import type { ShardState } from "../state/shard-state";

const noted = new WeakMap<ShardState, string[]>();

/** Runs of this shard just cancelled while sent and not yet called. */
export function noteCancelledUncalled(state: ShardState, runIds: readonly string[]): void {
  if (runIds.length === 0) return;
  const list = noted.get(state);
  if (list === undefined) noted.set(state, [...runIds]);
  else list.push(...runIds);
}

/** The runs noted since the last call, whose permits go back now. */
export function takeCancelledUncalled(state: ShardState): string[] {
  const list = noted.get(state);
  if (list === undefined) return [];
  noted.delete(state);
  return list;
}
