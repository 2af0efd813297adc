// How a shard paces itself while runs wait for room in its dispatch window: how large the window
// is (adapted to the queue delay it observes, src/core/load/dispatch-window.ts), when its timers may
// ring again, and how often it runs the write-behind (history, job statuses) meanwhile.
import {
  adaptWindow,
  initialWindow,
  type WindowLimits,
  type WindowState,
} from "../../../src/core/load/dispatch-window";
import type { ShardState } from "../state/shard-state";
import type { TickSummary } from "./tick";

/**
 * While runs wait for the dispatch window, the write-behind runs at most this often: a backlogged
 * shard spends its single thread on dispatch, and D1 takes fewer, larger writes. Longer is worse
 * under sustained load: at 5 s, one deferred flush per shard (16 × 2,000 rows) stalled a steady
 * 1,000 triggers/s for seconds and fed the backlog that deferred it.
 */
const BACKLOG_FLUSH_INTERVAL_MS = 1_000;
/**
 * A backpressured shard waits at most this long for claims or outcomes to free room (they end the
 * pause as soon as a quarter of the window is free). Job instants are not held (alarm-plan.ts),
 * and the share scan and the write-behind still run about once a second. At 250 ms, more than half
 * of a burst's passes sent nothing: 16 shards woke 4 times a second each to find the window full.
 */
const BACKPRESSURE_RETRY_MS = 1_000;
/**
 * While the window is full, the lead window is looked through for tenants under their share at
 * most this often (tick.ts, queueAheadWithinShares): a job due every second is found 4 s or more
 * before its instant, and a lone tenant's burst, which fills the window, pays one look a second.
 */
const SHARE_SCAN_INTERVAL_MS = 1_000;
/** Send times remembered at most: a lost message's entry must not live for ever. */
const MAX_REMEMBERED_SENDS = 20_000;

export class BacklogPacer {
  /** While the window is full, the alarm is not armed before this instant. */
  backpressureUntilMs = 0;
  private lastFlushAtMs = 0;
  private lastShareScanAtMs = Number.NEGATIVE_INFINITY;
  private wasBacklogged = false;
  private window: WindowState | null = null;
  /** When each run in the queue was sent (or its instant, if later): its claim measures the delay. */
  private readonly sentAtMs = new Map<string, number>();

  /** The window's size now (the limits come from the shard count, read per pass). */
  windowSize(limits: WindowLimits): number {
    this.window ??= initialWindow(limits);
    return Math.min(limits.maxSize, Math.max(limits.minSize, this.window.size));
  }

  /**
   * Window full: come back when claims or outcomes have freed a quarter of it (`afterClaims`), or
   * after a pause. Re-running every 50 ms instead (16 shards) starved local queue delivery
   * entirely: a 10,000-job burst delivered nothing for 30 s.
   */
  afterTick(summary: TickSummary, nowMs: number): void {
    this.backpressureUntilMs = summary.backpressured ? nowMs + BACKPRESSURE_RETRY_MS : 0;
    for (const run of summary.sent) {
      this.sentAtMs.delete(run.runId);
      this.sentAtMs.set(run.runId, Math.max(run.sentAtMs, run.fireAtMs));
    }
    for (const runId of this.sentAtMs.keys()) {
      if (this.sentAtMs.size <= MAX_REMEMBERED_SENDS) break;
      this.sentAtMs.delete(runId);
    }
  }

  /**
   * Runs were claimed: their queue delay adapts the window, and a backpressured shard whose window
   * has room again may send at once.
   */
  afterClaims(state: ShardState, claimedRunIds: string[], limits: WindowLimits, nowMs: number): void {
    let delayMs = 0;
    let count = 0;
    for (const runId of claimedRunIds) {
      const sentAtMs = this.sentAtMs.get(runId);
      if (sentAtMs === undefined) continue;
      this.sentAtMs.delete(runId);
      delayMs = Math.max(delayMs, nowMs - sentAtMs);
      count += 1;
    }
    this.window = adaptWindow(
      this.window ?? initialWindow(limits),
      limits,
      { delayMs, count, wasFull: this.backpressureUntilMs > 0 },
      nowMs,
    );
    this.afterOutcomes(state, limits, nowMs);
  }

  /** Runs ended or were claimed: a backpressured shard may send again once a quarter is free. */
  afterOutcomes(state: ShardState, limits: WindowLimits, nowMs: number): void {
    if (this.backpressureUntilMs <= nowMs) return;
    const size = this.windowSize(limits);
    if (state.runs.windowTotal() <= size - Math.max(1, Math.floor(size / 4))) this.backpressureUntilMs = 0;
  }

  /** Whether a pass with a full window may look for tenants under their share now (then it does). */
  shareScanDue(nowMs: number): boolean {
    if (nowMs - this.lastShareScanAtMs < SHARE_SCAN_INTERVAL_MS) return false;
    this.lastShareScanAtMs = nowMs;
    return true;
  }

  /** While a backlog defers the write-behind, when it may run next (0: not deferred). */
  flushNotBeforeMs(): number {
    return this.wasBacklogged ? this.lastFlushAtMs + BACKLOG_FLUSH_INTERVAL_MS : 0;
  }

  /** Whether this pass runs the write-behind (then it counts as the last flush). */
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
