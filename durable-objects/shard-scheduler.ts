import { DurableObject } from "cloudflare:workers";
import { raisePauseAlerts } from "../src/alerts";
import { sqlInList, UNCLAIMED_STATES } from "../src/core/run-state";
import { logEvent } from "../src/log";
import { type BackfillResult, type RetryResult, shardCount, type TriggerResult } from "../src/shard/client";
import type {
  ClaimRequest,
  ClaimResult,
  CompleteRunResult,
  HeartbeatResult,
  RunCompletion,
  OutcomeReport,
  OutcomeResult,
  ShardJob,
} from "../src/shard/protocol";
import { completeRun, heartbeatRun } from "./shard/callbacks";
import { claimRuns, type OutcomeEffects, reportOutcomes } from "./shard/execution";
import { flushToD1, IN_FLIGHT_FLUSH_AFTER_MS } from "./shard/history";
import { runsPerMessage } from "./shard/dispatch";
import { applyJobSnapshots } from "./shard/job-sync";
import { backfill, retryRunNow, triggerNow } from "./shard/operations";
import { runTick } from "./shard/tick";
import { deadLetterPoisonRun, type WatchdogReport, watchdogScan } from "./shard/watchdog";
import { migrateShardSchema } from "./shard-schema";

/** How soon unwritten history reaches D1 after a change. */
const FLUSH_DELAY_MS = 250;
/** An alarm overdue by more than this, with none armed, was lost (not merely about to run). */
const ALARM_LOSS_THRESHOLD_MS = 5_000;
/** A pass that left work behind (bounded batches, backpressure) comes back this soon. */
const BUSY_RETRY_MS = 50;
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
/**
 * While runs wait for the dispatch budget, history goes to D1 at most this often: a backlogged
 * shard spends its single thread on dispatch, and D1 takes fewer, larger writes. Longer is worse
 * under sustained load: at 5 s, one deferred flush per shard (16 × 2,000 rows) stalled a steady
 * 1,000 triggers/s for seconds and fed the backlog that deferred it.
 */
const BACKLOG_FLUSH_INTERVAL_MS = 1_000;
/** A backpressured shard waits at most this long for claims to refill its budget. */
const BACKPRESSURE_RETRY_MS = 250;

/** Test-only fault switches; ignored unless the EDGECRON_TEST_HOOKS binding is "1". */
export interface ShardFaults {
  alarmThrowAfterJobs?: number;
  failSendBatch?: boolean;
  /** sendBatch "succeeds" but nothing is sent: a queue that lost the messages. */
  dropDispatches?: boolean;
  /** The next N claim / outcome RPCs fail (the shard unreachable). */
  failClaims?: number;
  /** Writing history to D1 fails (D1 unavailable). */
  failHistoryFlush?: boolean;
}

/**
 * One shard's timing wheel: the single writer of its jobs' timers and in-flight runs. Exactly one
 * instance exists per shard name, so it is the natural fence: only it can claim a run.
 */
export class ShardScheduler extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private shard = -1;
  private armedAtMs: number | null = null;
  private lastFlushAtMs = 0;
  private wasBacklogged = false;
  private faults: ShardFaults = {};
  /** Test hook: the alarm stays lost (nothing re-arms it, the watchdog included) until then. */
  private alarmLostUntilMs = 0;
  /** While alarm() runs, getAlarm() reports none: the watchdog must not mistake that for a loss. */
  private alarmRunning = false;
  /** While the unclaimed budget is spent, the alarm is not armed before this instant. */
  private backpressureUntilMs = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      migrateShardSchema(this.sql);
      const row = this.sql.exec<{ value: number }>("SELECT value FROM meta WHERE key = 'shard'").toArray()[0];
      this.shard = row?.value ?? -1;
      this.armedAtMs = await ctx.storage.getAlarm();
      if (this.testHooksEnabled()) this.faults = (await ctx.storage.get<ShardFaults>("faults")) ?? {};
    });
  }

  async upsertJobs(shard: number, jobs: ShardJob[]): Promise<{ ok: true; confirmed: string[] }> {
    this.rememberShard(shard);
    await this.injectRpcFault();
    const nowMs = Date.now();
    const confirmed = applyJobSnapshots(this.sql, jobs, nowMs);
    await this.armAlarm();
    return { ok: true, confirmed };
  }

  async trigger(shard: number, jobId: string): Promise<TriggerResult> {
    this.rememberShard(shard);
    const result = triggerNow(this.sql, jobId, Date.now());
    await this.armAlarm();
    return result;
  }

  async backfill(shard: number, jobId: string, fromMs: number, toMs: number): Promise<BackfillResult> {
    this.rememberShard(shard);
    const result = backfill(this.sql, jobId, fromMs, toMs, Date.now());
    await this.armAlarm();
    return result;
  }

  async retryRun(shard: number, runId: string): Promise<RetryResult> {
    this.rememberShard(shard);
    const result = retryRunNow(this.sql, runId, Date.now());
    await this.armAlarm();
    return result;
  }

  /** The authoritative dedup: one claim per fence; stale fences, old versions, paused jobs refused. */
  async claimRuns(shard: number, claims: ClaimRequest[]): Promise<ClaimResult[]> {
    this.rememberShard(shard);
    await this.injectRpcFault();
    const nowMs = Date.now();
    const results = claimRuns(this.sql, claims, nowMs);
    if (this.backpressureUntilMs > nowMs && this.budgetRefilled()) this.backpressureUntilMs = 0;
    await this.armAlarm();
    return results;
  }

  async reportOutcomes(shard: number, reports: OutcomeReport[]): Promise<OutcomeResult[]> {
    this.rememberShard(shard);
    await this.injectRpcFault();
    const nowMs = Date.now();
    const effects: OutcomeEffects = { pausedJobs: [] };
    const results = reportOutcomes(this.sql, reports, nowMs, effects, Math.random);
    await this.armAlarm();
    return results;
  }

  /** A long-running target reports its attempt's end (its run token already verified). */
  async completeRun(shard: number, completion: RunCompletion): Promise<CompleteRunResult> {
    this.rememberShard(shard);
    const effects: OutcomeEffects = { pausedJobs: [] };
    const result = completeRun(this.sql, completion, Date.now(), effects, Math.random);
    await this.armAlarm();
    return result;
  }

  /** A long-running target is still working: extend its attempt's lease. */
  async heartbeatRun(shard: number, runId: string, fence: number): Promise<HeartbeatResult> {
    this.rememberShard(shard);
    const result = heartbeatRun(this.sql, runId, fence, Date.now());
    await this.armAlarm();
    return result;
  }

  /** A dispatch message the queue gave up on (the consumer kept failing): dead-letter its run. */
  async deadLetterPoison(shard: number, runId: string, fence: number, reason: string): Promise<boolean> {
    this.rememberShard(shard);
    const done = deadLetterPoisonRun(this.sql, runId, fence, reason, Date.now());
    await this.armAlarm();
    return done;
  }

  /** Maintenance: re-arm a missing alarm, report overdue jobs, prune old terminal runs. */
  async watchdog(shard: number, retentionMs: number): Promise<WatchdogReport> {
    this.rememberShard(shard);
    const nowMs = Date.now();
    const alarmAtMs = await this.ctx.storage.getAlarm();
    const report = watchdogScan(this.sql, nowMs, retentionMs, alarmAtMs);
    if (this.alarmRunning) return report;
    this.armedAtMs = alarmAtMs;
    await this.armAlarm();
    // A due alarm waiting to run also reads as none: only a timer in the future, or one overdue
    // by more than a few seconds, proves the alarm was really lost (a pending flush proves nothing).
    const { timerMs } = this.nextWork();
    report.alarmRearmed =
      alarmAtMs === null &&
      timerMs !== null &&
      (timerMs > nowMs || timerMs < nowMs - ALARM_LOSS_THRESHOLD_MS);
    return report;
  }

  override async alarm(): Promise<void> {
    this.armedAtMs = null;
    this.alarmRunning = true;
    let busy = false;
    try {
      const summary = await runTick(this.sql, this.tickSettings(), Date.now());
      busy = summary.more;
      // Budget spent: come back when claims have freed half of it (claimRuns), or after a pause.
      // Re-running every 50 ms instead (16 shards) starved local queue delivery entirely: a
      // 10,000-job burst delivered nothing for 30 s; with this, it drains at ~1,000 jobs/s.
      this.backpressureUntilMs = summary.backpressured ? Date.now() + BACKPRESSURE_RETRY_MS : 0;
      if (this.faults.failHistoryFlush && this.testHooksEnabled())
        throw new Error("fault injected: D1 write fails");
      const backlogged = summary.backpressured || summary.more;
      // A backlog that just began defers the flush (it started with the burst) for the interval.
      if (backlogged && !this.wasBacklogged) this.lastFlushAtMs = Date.now();
      this.wasBacklogged = backlogged;
      if (!backlogged || Date.now() - this.lastFlushAtMs >= BACKLOG_FLUSH_INTERVAL_MS) {
        this.lastFlushAtMs = Date.now();
        const flushed = await flushToD1(this.sql, this.env, this.shard);
        if (flushed.pausedJobs.length > 0) await raisePauseAlerts(this.env, flushed.pausedJobs);
      }
    } catch (error) {
      // Never lose timers: everything written before the throw is durable and the finally below
      // re-arms for whatever is still due. Swallowing keeps the runtime's own 6 retries for
      // failures we cannot see (a crash mid-pass).
      logEvent("shard.alarm_failed", { shard: this.shard, error });
    } finally {
      this.alarmRunning = false;
      await this.armAlarm(busy ? Date.now() + BUSY_RETRY_MS : undefined);
    }
  }

  // --- test hooks: inert unless the EDGECRON_TEST_HOOKS binding is "1" ---

  async testSetFaults(faults: ShardFaults): Promise<void> {
    if (!this.testHooksEnabled()) throw new Error("test hooks are disabled");
    this.faults = faults;
    await this.ctx.storage.put("faults", faults);
  }

  /** Simulates a lost alarm that nothing re-arms for `lostForMs` (then the watchdog repairs it). */
  async testDeleteAlarm(lostForMs = 0): Promise<void> {
    if (!this.testHooksEnabled()) throw new Error("test hooks are disabled");
    await this.ctx.storage.deleteAlarm();
    this.armedAtMs = null;
    this.alarmLostUntilMs = Date.now() + lostForMs;
  }

  async testQuery(query: string): Promise<Record<string, SqlStorageValue>[]> {
    if (!this.testHooksEnabled()) throw new Error("test hooks are disabled");
    return this.sql.exec(query).toArray();
  }

  private async injectRpcFault(): Promise<void> {
    if (!this.testHooksEnabled() || !this.faults.failClaims) return;
    this.faults = { ...this.faults, failClaims: this.faults.failClaims - 1 };
    await this.ctx.storage.put("faults", this.faults);
    throw new Error("fault injected: shard RPC fails");
  }

  async testFaults(): Promise<ShardFaults> {
    if (!this.testHooksEnabled()) throw new Error("test hooks are disabled");
    return this.faults;
  }

  private testHooksEnabled(): boolean {
    return this.env.EDGECRON_TEST_HOOKS === "1";
  }

  private tickSettings() {
    const hooks = this.testHooksEnabled();
    return {
      shard: this.shard,
      leaseMs: Number(this.env.DISPATCH_LEASE_MS) || 30_000,
      runsPerMessage: runsPerMessage(this.env.DISPATCH_RUNS_PER_MESSAGE),
      maxUnclaimed: Math.max(
        UNCLAIMED_BUDGET_MIN_PER_SHARD,
        Math.floor(UNCLAIMED_BUDGET_TOTAL / shardCount(this.env)),
      ),
      queue: this.env.DISPATCH_QUEUE,
      throwAfterJobs: hooks ? this.faults.alarmThrowAfterJobs : undefined,
      failSendBatch: hooks ? this.faults.failSendBatch : undefined,
      dropDispatches: hooks ? this.faults.dropDispatches : undefined,
    };
  }

  /** True once at most half of the unclaimed budget is in use. */
  private budgetRefilled(): boolean {
    const unclaimed = this.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE state IN ${sqlInList(UNCLAIMED_STATES)}`)
      .one().n;
    return unclaimed <= this.tickSettings().maxUnclaimed / 2;
  }

  private rememberShard(shard: number): void {
    if (this.shard === shard) return;
    this.shard = shard;
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('shard', ?)", shard);
  }

  /** Keeps the alarm at the earliest thing due (or sooner: `atLeastBy`). */
  private async armAlarm(atLeastBy?: number): Promise<void> {
    const nowMs = Date.now();
    if (nowMs < this.alarmLostUntilMs) return;
    const next = this.nextWork();
    const timerMs = next.timerMs === null ? null : Math.max(next.timerMs, this.backpressureUntilMs);
    const candidates = [timerMs, next.flushAtMs, atLeastBy ?? null].filter(
      (value): value is number => value !== null,
    );
    const atMs = candidates.length === 0 ? null : Math.min(...candidates);
    if (atMs === null) {
      if (this.armedAtMs !== null) await this.ctx.storage.deleteAlarm();
      this.armedAtMs = null;
      return;
    }
    if (this.armedAtMs === atMs) return;
    // An alarm already set earlier stays: it re-arms for the rest when it runs.
    if (this.armedAtMs !== null && this.armedAtMs <= atMs && this.armedAtMs > nowMs) return;
    await this.ctx.storage.setAlarm(atMs);
    this.armedAtMs = atMs;
  }

  /** The earliest timer (a job's fire time or a run's), and when history can next be flushed. */
  private nextWork(): { timerMs: number | null; flushAtMs: number | null } {
    const row = this.sql
      .exec<{ job_ms: number | null; run_ms: number | null; settled_ms: number | null; urgent: number }>(
        `SELECT
           (SELECT MIN(next_fire_ms) FROM jobs WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL) AS job_ms,
           (SELECT MIN(due_at_ms) FROM runs WHERE due_at_ms IS NOT NULL) AS run_ms,
           (SELECT MIN(updated_at_ms) FROM runs
              WHERE dirty = 1 AND due_at_ms IS NOT NULL AND state <> 'SCHEDULED') AS settled_ms,
           (EXISTS (SELECT 1 FROM runs WHERE dirty = 1 AND due_at_ms IS NULL)
              OR EXISTS (SELECT 1 FROM runs WHERE dlq_pending = 1)
              OR EXISTS (SELECT 1 FROM jobs WHERE status_dirty = 1)) AS urgent`,
      )
      .one();
    const timers = [row.job_ms, row.run_ms].filter((value): value is number => value !== null);
    const nowMs = Date.now();
    const flushes = [
      row.urgent ? nowMs + FLUSH_DELAY_MS : null,
      // An in-flight run's history is written once it has sat unchanged for a while.
      row.settled_ms === null
        ? null
        : Math.max(nowMs + FLUSH_DELAY_MS, row.settled_ms + IN_FLIGHT_FLUSH_AFTER_MS),
    ].filter((value): value is number => value !== null);
    return {
      timerMs: timers.length === 0 ? null : Math.min(...timers),
      flushAtMs: flushes.length === 0 ? null : Math.min(...flushes),
    };
  }
}
