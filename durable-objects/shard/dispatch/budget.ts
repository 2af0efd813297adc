// The dispatch window's accounting (backpressure): how many runs a shard has handed to the
// execution path and not yet reported, per tenant, kept by the run book as runs move
// (../state/run-book.ts). How large the window is: src/core/load/dispatch-window.ts.
import type { WindowLimits } from "../../../src/core/load/dispatch-window";

/**
 * The window may grow to an equal share of this across shards, never under 100 (with 256
 * production shards: 25,600 in flight). Bundled 50 to a message, 8,000 runs are 160 messages, far
 * from the local queue's 10,000 in-flight limit (docs/PERFORMANCE.md).
 */
const WINDOW_MAX_TOTAL = 8_000;
const WINDOW_MAX_MIN_PER_SHARD = 100;
/**
 * A window never shrinks under this: every tenant keeps a slot, and a message still bundles. At
 * 4, the windows collapsed under a flood, each shard woke every few claims, and the machine
 * started 80 calls/s instead of ~280.
 */
const WINDOW_MIN = 16;
/**
 * The queue delay the windows aim for: runs in the queue are at most about this far from
 * starting. Short enough that a tenant's run sent during another's flood is punctual, long
 * enough to hide a claim's round trip and keep the consumers busy.
 */
export const WINDOW_TARGET_DELAY_MS = 300;

/** One shard's window limits. */
export function windowLimits(shardCount: number): WindowLimits {
  return {
    minSize: WINDOW_MIN,
    maxSize: Math.max(WINDOW_MAX_MIN_PER_SHARD, Math.floor(WINDOW_MAX_TOTAL / shardCount)),
    targetDelayMs: WINDOW_TARGET_DELAY_MS,
  };
}
