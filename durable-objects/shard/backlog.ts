// How a shard paces itself while runs wait for the unclaimed budget: when its timers may ring
// again, and how often it writes history to D1 meanwhile.
import { budgetRefilled } from "./budget";
import type { TickSummary } from "./tick";

/**
 * While runs wait for the dispatch budget, history goes to D1 at most this often: a backlogged
 * shard spends its single thread on dispatch, and D1 takes fewer, larger writes. Longer is worse
 * under sustained load: at 5 s, one deferred flush per shard (16 × 2,000 rows) stalled a steady
 * 1,000 triggers/s for seconds and fed the backlog that deferred it.
 */
const BACKLOG_FLUSH_INTERVAL_MS = 1_000;
/** A backpressured shard waits at most this long for claims to refill its budget. */
const BACKPRESSURE_RETRY_MS = 250;

export class BacklogPacer {
  /** While the unclaimed budget is spent, the alarm is not armed before this instant. */
  backpressureUntilMs = 0;
  private lastFlushAtMs = 0;
  private wasBacklogged = false;

  /**
   * Budget spent: come back when claims have freed half of it (`afterClaims`), or after a pause.
   * Re-running every 50 ms instead (16 shards) starved local queue delivery entirely: a
   * 10,000-job burst delivered nothing for 30 s; with this, it drains at ~1,000 jobs/s.
   */
  afterTick(summary: TickSummary, nowMs: number): void {
    this.backpressureUntilMs = summary.backpressured ? nowMs + BACKPRESSURE_RETRY_MS : 0;
  }

  /** Claims freed budget: a backpressured shard may send again at once. */
  afterClaims(sql: SqlStorage, maxUnclaimed: number, nowMs: number): void {
    if (this.backpressureUntilMs > nowMs && budgetRefilled(sql, maxUnclaimed, nowMs))
      this.backpressureUntilMs = 0;
  }

  /** Whether this pass writes history to D1 (then it counts as the last flush). */
  flushNow(summary: TickSummary, nowMs: number): boolean {
    const backlogged = summary.backpressured || summary.more;
    // A backlog that just began defers the flush (it started with the burst) for the interval.
    if (backlogged && !this.wasBacklogged) this.lastFlushAtMs = nowMs;
    this.wasBacklogged = backlogged;
    if (backlogged && nowMs - this.lastFlushAtMs < BACKLOG_FLUSH_INTERVAL_MS) return false;
    this.lastFlushAtMs = nowMs;
    return true;
  }
}
