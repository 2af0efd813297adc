// A gate's wake can arrive while this shard's own ask of that gate is in flight (a Durable Object
// takes other calls while it awaits an RPC). The wake then finds no run to pull forward (they are
// being asked about), and the refusal that follows would hold them to the gate's next-ask time:
// up to a minute for a paused key that was just resumed. So each wake is noted, and a refusal
// from an ask that started before the latest wake asks again at once.

import type { ShardState } from "../state/shard-state";

/** The latest wake per gate, per shard instance. */
const wakesByShard = new WeakMap<ShardState, Map<string, number>>();

export function noteGateWake(state: ShardState, gate: string, atMs: number): void {
  let wakes = wakesByShard.get(state);
  if (wakes === undefined) {
    wakes = new Map();
    wakesByShard.set(state, wakes);
  }
  wakes.set(gate, atMs);
}

/** When a refused run asks again: at once if the gate woke this shard since the ask began. */
export function nextAskMs(
  state: ShardState,
  gate: string,
  askedAtMs: number,
  gateRetryAtMs: number,
  nowMs: number,
): number {
  const wokeAtMs = wakesByShard.get(state)?.get(gate);
  return wokeAtMs !== undefined && wokeAtMs >= askedAtMs ? nowMs + 1 : gateRetryAtMs;
}
