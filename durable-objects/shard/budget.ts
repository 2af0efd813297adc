// The unclaimed budget (backpressure): how many dispatched-but-unclaimed runs a shard may have
// out at once. Counted here only, for the tick (what may be sent) and for claims (when a
// backpressured shard may resume).
import { sqlInList, UNCLAIMED_STATES } from "../../src/core/run-state";

/**
 * Dispatched-but-unclaimed runs allowed across all shards; each shard gets an equal share, never
 * under 100 (with 256 production shards: 25,600 in flight). Bundled 50 to a message, 8,000 runs
 * are 160 messages, far from the local queue's 10,000 in-flight limit (docs/TOOLCHAIN.md); what
 * sizes it now is the burst's first delivery: at 20,000, a 20,000-job burst drained faster once
 * flowing (~1,900 vs ~1,330 jobs/s) but every shard sent everything before the consumer got the
 * (one, local) thread, so the first call came ~5 s late instead of ~1.4 s, for a p99 within 5 %.
 */
const UNCLAIMED_BUDGET_TOTAL = 8_000;
const UNCLAIMED_BUDGET_MIN_PER_SHARD = 100;

/** One shard's share of the unclaimed budget. */
export function unclaimedBudget(shardCount: number): number {
  return Math.max(UNCLAIMED_BUDGET_MIN_PER_SHARD, Math.floor(UNCLAIMED_BUDGET_TOTAL / shardCount));
}

/**
 * Runs sent (or being sent) to the queue, due, and not yet claimed by a consumer. A run queued
 * ahead of its instant (./ahead.ts) is not counted until the instant: no consumer may claim it
 * before, and the lead window already bounds how many there are.
 */
export function countUnclaimed(sql: SqlStorage, nowMs: number): number {
  return sql
    .exec<{ n: number }>(
      // The WHERE of the runs_unclaimed index (shard schema v12), so the count is an index range.
      `SELECT COUNT(*) AS n FROM runs WHERE state IN ${sqlInList(UNCLAIMED_STATES)} AND fire_at_ms <= ?`,
      nowMs,
    )
    .one().n;
}

/** How many more runs may be sent now. */
export function budgetLeft(sql: SqlStorage, maxUnclaimed: number, nowMs: number): number {
  return Math.max(0, maxUnclaimed - countUnclaimed(sql, nowMs));
}

/** True once at most half of the budget is in use: a backpressured shard may send again. */
export function budgetRefilled(sql: SqlStorage, maxUnclaimed: number, nowMs: number): boolean {
  return countUnclaimed(sql, nowMs) <= maxUnclaimed / 2;
}
