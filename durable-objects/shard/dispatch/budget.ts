// The dispatch window's accounting (backpressure): how many runs a shard has handed to the
// execution path and not yet reported, per tenant. Counted here only, for the tick (what may be
// sent, ./tick.ts) and for claims and outcomes (when a shard waiting for room may send again,
// ./backlog.ts). How large the window is: src/core/dispatch-window.ts.
import type { WindowLimits } from "../../../src/core/dispatch-window";

/**
 * The window may grow to an equal share of this across shards, never under 100 (with 256
 * production shards: 25,600 in flight). It was the fixed unclaimed budget before the window
 * adapted to the queue delay: bundled 50 to a message, 8,000 runs are 160 messages, far from the
 * local queue's 10,000 in-flight limit (docs/TOOLCHAIN.md).
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

/**
 * Runs in the window, per tenant: sent (or being sent) and not claimed, sent ahead included, or
 * claimed and running. A long-running run whose target accepted the work (it reports back later)
 * is not: it holds no consumer. Nor is a run whose lease has expired: it is presumed lost, and this
 * pass moves it on (a re-send takes a slot again). The WHERE is the runs_in_flight index's (shard
 * schema v14) word for word, and INDEXED BY makes this a walk of that index: workerd's planner
 * otherwise took the (tenant_id, priority, due_at_ms) index for the GROUP BY and walked every timer.
 */
export function inFlightByTenant(sql: SqlStorage, nowMs: number): Map<string, number> {
  const rows = sql
    .exec<{ tenant_id: string; n: number }>(
      `SELECT tenant_id, COUNT(*) AS n FROM runs INDEXED BY runs_in_flight
       WHERE (state IN ('ACQUIRED', 'DISPATCHED') OR (state = 'RUNNING' AND accepted_at_ms IS NULL))
         AND due_at_ms > ?
       GROUP BY tenant_id`,
      nowMs,
    )
    .toArray();
  return new Map(rows.map((row) => [row.tenant_id, row.n]));
}

/** Runs in the window, all tenants. */
export function countInFlight(sql: SqlStorage, nowMs: number): number {
  return sql
    .exec<{ n: number }>(
      `SELECT COUNT(*) AS n FROM runs INDEXED BY runs_in_flight
       WHERE (state IN ('ACQUIRED', 'DISPATCHED') OR (state = 'RUNNING' AND accepted_at_ms IS NULL))
         AND due_at_ms > ?`,
      nowMs,
    )
    .one().n;
}

/**
 * Calls per tenant that the consumer reported slow (src/core/slow-calls.ts) and that are still
 * running, lease holding. A walk of the runs_slow_calls index (shard schema v19), which holds only
 * those calls: nothing to read while every call is quick. INDEXED BY, because the planner would
 * otherwise pick a (tenant_id, due_at_ms) index and walk every timer of the tenant.
 */
export function slowCallsByTenant(sql: SqlStorage, nowMs: number): Map<string, number> {
  const rows = sql
    .exec<{ tenant_id: string; n: number }>(
      `SELECT tenant_id, COUNT(*) AS n FROM runs INDEXED BY runs_slow_calls
       WHERE slow_since_ms IS NOT NULL AND state = 'RUNNING' AND accepted_at_ms IS NULL AND due_at_ms > ?
       GROUP BY tenant_id`,
      nowMs,
    )
    .toArray();
  return new Map(rows.map((row) => [row.tenant_id, row.n]));
}
