// The size of a shard's dispatch window: how many runs it may have handed to the execution path
// (sent and not claimed, claimed and not reported) at once. Sized from what the consumers absorb,
// by AIMD on the queue delay the shard observes between sending a run and its claim: every shard
// sends into the same queue, so every shard's window shrinks when the queue holds more than a
// short time's work, and the runs beyond the windows wait in their shards, where fair share,
// pauses and deletes apply. Pure: time is a parameter.

export interface WindowLimits {
  minSize: number;
  maxSize: number;
  /** A claim later than this after its send (or instant) means the queue holds too much. */
  targetDelayMs: number;
}

export interface WindowState {
  size: number;
  /** When the window last shrank: it shrinks at most once per target delay (one "round trip"). */
  shrunkAtMs: number;
}

/** A new window starts at this size (two full messages), then adapts to the claims. */
export const INITIAL_WINDOW_SIZE = 100;

export function initialWindow(limits: WindowLimits): WindowState {
  return { size: Math.min(limits.maxSize, Math.max(limits.minSize, INITIAL_WINDOW_SIZE)), shrunkAtMs: 0 };
}

/**
 * The window after a batch of claims whose worst queue delay was `delayMs`: past the target it
 * shrinks by a quarter (once per target delay, so one slow batch does not collapse it); under half
 * the target it grows by the runs claimed (a doubling per round trip while the queue is short);
 * in between by one. It grows only when `wasFull` (the shard had runs waiting for room), so an
 * idle shard's window does not drift to its maximum and release a burst at once.
 */
export function adaptWindow(
  state: WindowState,
  limits: WindowLimits,
  claimed: { delayMs: number; count: number; wasFull: boolean },
  nowMs: number,
): WindowState {
  if (claimed.count === 0) return state;
  if (claimed.delayMs > limits.targetDelayMs) {
    if (nowMs - state.shrunkAtMs < limits.targetDelayMs) return state;
    return { size: Math.max(limits.minSize, Math.floor(state.size * 0.75)), shrunkAtMs: nowMs };
  }
  if (!claimed.wasFull) return state;
  const growth = claimed.delayMs < limits.targetDelayMs / 2 ? claimed.count : 1;
  return { ...state, size: Math.min(limits.maxSize, state.size + growth) };
}
