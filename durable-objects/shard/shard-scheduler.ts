import { DurableObject } from "cloudflare:workers";
import { countAlarmSet, meteredEnv, meteredSql, rowsMeterOn } from "../../src/rows-meter";
import { shardCount } from "../../src/shard/client";
import type * as History from "../../src/shard/history-protocol";
import type * as Protocol from "../../src/shard/protocol";
import type { ShardFaults, ShardTestCommand } from "../../src/test-faults";
import { runAlarmPass } from "./alarm-pass";
import { windowLimits } from "./dispatch/budget";
import { dispatchLeadMs } from "./dispatch/pass-settings";
import { pullForwardWaiting, releaseFinished, renewHeld } from "./flow/flow-permits";
import { noteHostThrottled, reportHostAnswers, type ThrottledHost } from "./flow/host-throttles";
import { forgetTenantLimits } from "./flow/tenant-gates";
import { setTenantWeight } from "./flow/tenant-weights";
import { takeCancelledUncalled } from "./flow/uncalled-permits";
import { importHistory } from "./history/legacy-records";
import { firedSince, historyRun, historyStats, jobHistory, tenantHistory } from "./history/reads";
import { applyJobSnapshots } from "./job-changes/job-sync";
import { reparkSuspended, setTenantSuspended } from "./job-changes/suspension";
import { type OutcomeEffects, reportOutcomes } from "./runs/attempt-outcomes";
import { claimRuns } from "./runs/claims";
import { fireJobNow } from "./runs/fire-now";
import { giveBackRuns } from "./runs/give-backs";
import { leasesAfterRestart, renewLeases } from "./runs/leases";
import { completeRun, heartbeatRun } from "./runs/long-running-reports";
import { backfill, retryRunNow, triggerNow } from "./runs/operator-runs";
import { shareWaitOf } from "./runs/share-wait";
import { markSlowCalls } from "./runs/slow-calls";
import { migrateShardSchema } from "./schema";
import { restoreShardState } from "./state/restore";
import { ShardState } from "./state/shard-state";
import { INERT_SHARD_SEAM, loadShardTestSeam, type ShardTestSeam } from "./test-seam";
import { tzdataProgress } from "./tzdata/timers-version";
import { TzdataWatch } from "./tzdata/watch";
import { alarmWasLost, earliestTimerMs, planAlarm } from "./wheel/alarm-plan";
import { ArmedAlarm } from "./wheel/armed-alarm";
import { BacklogPacer } from "./wheel/backlog";
import { readDueTimes } from "./wheel/due-times";
import { deadLetterPoisonRun, type Retention, watchdogScan } from "./wheel/watchdog";

interface ActOptions {
  /** The test seam may make this RPC fail (the shard unreachable). */
  faultable?: boolean;
  /** False: while alarm() runs, leave the re-arm to its own `finally`. */
  rearmDuringAlarm?: boolean;
}

/**
 * One shard's timing wheel: the single writer of its jobs' timers and in-flight runs. Exactly one
 * instance exists per shard name, so it is the natural fence: only it can claim a run. This class
 * only routes: every RPC goes through `act` (remember the shard, do it, re-arm the alarm), and the
 * work lives in ./shard/*.
 */
export class ShardScheduler extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Its runs, jobs and stats in memory, made durable by batch (./state/shard-state.ts). */
  readonly state: ShardState;
  private shard = -1;
  private readonly armed: ArmedAlarm;
  private readonly backlog = new BacklogPacer();
  private readonly tzdata: TzdataWatch;
  private testSeam: ShardTestSeam = INERT_SHARD_SEAM;
  /** While alarm() runs, getAlarm() reports none: the watchdog must not mistake that for a loss. */
  private alarmRunning = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.env = meteredEnv(env);
    const metering = rowsMeterOn(env);
    this.sql = metering ? meteredSql(ctx.storage.sql, "shard") : ctx.storage.sql;
    this.armed = new ArmedAlarm(ctx.storage, metering ? () => countAlarmSet("shard") : undefined);
    this.state = new ShardState(this.sql);
    this.tzdata = new TzdataWatch(this.state, env);
    ctx.blockConcurrencyWhile(async () => {
      migrateShardSchema(this.sql);
      restoreShardState(this.state, Date.now());
      // Runs in flight when the last instance ended may have died with it: short leases from now.
      leasesAfterRestart(this.state, Date.now());
      const row = this.sql.exec<{ value: number }>("SELECT value FROM meta WHERE key = 'shard'").toArray()[0];
      this.shard = row?.value ?? -1;
      this.armed.atMs = await ctx.storage.getAlarm();
      this.testSeam = await loadShardTestSeam(env, ctx.storage);
    });
  }

  async upsertJobs(shard: number, jobs: Protocol.ShardJob[]): Promise<Protocol.UpsertResult> {
    const apply = (nowMs: number) => {
      const confirmed = applyJobSnapshots(this.state, jobs, nowMs);
      reparkSuspended(this.state, jobs, nowMs);
      return { ok: true as const, confirmed };
    };
    return this.act(shard, apply, { faultable: true });
  }

  /** Suspends or unsuspends a tenant's jobs on this shard (./job-changes/suspension.ts). */
  async setTenantSuspended(shard: number, tenantId: string, suspended: boolean): Promise<number> {
    return this.act(shard, (nowMs) => setTenantSuspended(this.state, tenantId, suspended, nowMs), {
      faultable: true,
    });
  }

  /** The tenant's weight in this shard's fair share (./flow/tenant-weights.ts). */
  async setTenantWeight(shard: number, tenantId: string, weight: number): Promise<void> {
    return this.act(shard, (nowMs) => {
      forgetTenantLimits(tenantId);
      setTenantWeight(this.sql, tenantId, weight, nowMs);
    });
  }

  async trigger(shard: number, jobId: string, debounceKey?: string): Promise<Protocol.TriggerResult> {
    return this.act(shard, (nowMs) => triggerNow(this.state, jobId, nowMs, debounceKey));
  }

  async backfill(
    shard: number,
    jobId: string,
    fromMs: number,
    toMs: number,
  ): Promise<Protocol.BackfillResult> {
    return this.act(shard, (nowMs) => backfill(this.state, jobId, fromMs, toMs, nowMs));
  }

  async fireNow(shard: number, jobId: string): Promise<Protocol.FireNowResult> {
    return this.act(shard, (nowMs) => fireJobNow(this.state, jobId, nowMs));
  }

  async retryRun(shard: number, runId: string): Promise<Protocol.RetryResult> {
    return this.act(shard, (nowMs) => retryRunNow(this.state, runId, nowMs));
  }

  /** The authoritative dedup: one claim per fence; stale fences, old versions, paused jobs refused. */
  async claimRuns(shard: number, claims: Protocol.ClaimRequest[]): Promise<Protocol.ClaimResult[]> {
    return this.act(
      shard,
      (nowMs) => {
        const results = claimRuns(this.state, claims, nowMs);
        const claimed = results.flatMap((result) => (result.ok ? [result.runId] : []));
        this.backlog.afterClaims(this.state, claimed, windowLimits(shardCount(this.env)), nowMs);
        return results;
      },
      { faultable: true },
    );
  }

  async reportOutcomes(shard: number, reports: Protocol.OutcomeReport[]): Promise<Protocol.OutcomeResult[]> {
    const effects: OutcomeEffects = { pausedJobs: [] };
    const results = await this.act(
      shard,
      (nowMs) => {
        const reported = reportOutcomes(this.state, reports, nowMs, effects, Math.random);
        // Ended runs freed room in the dispatch window: a shard waiting for it may send again.
        this.backlog.afterOutcomes(this.state, windowLimits(shardCount(this.env)), nowMs);
        return reported;
      },
      { faultable: true },
    );
    // The calls that ended give their flow-control permits back; a long-running one that was
    // accepted keeps its permits for as long as its lease here.
    const ended = results.flatMap((result) =>
      result.ok && result.state !== "RUNNING" ? [result.runId] : [],
    );
    const accepted = results.flatMap((result) =>
      result.ok && result.state === "RUNNING" ? [result.runId] : [],
    );
    await releaseFinished(this.state, this.env, ended, Date.now(), effects.rows);
    await renewHeld(this.state, this.env, accepted, Date.now(), effects.rows);
    // What the answers said about their hosts: a "slow down" throttles the host (host-throttles.ts).
    await reportHostAnswers(this.state, this.env, reports, results, effects.rows, Date.now());
    return results;
  }

  /** A long-running target reports its attempt's end (its run token already verified). */
  async completeRun(shard: number, completion: Protocol.RunCompletion): Promise<Protocol.CompleteRunResult> {
    const effects: OutcomeEffects = { pausedJobs: [] };
    const result = await this.act(shard, (nowMs) =>
      completeRun(this.state, completion, nowMs, effects, Math.random),
    );
    if (result.ok) await releaseFinished(this.state, this.env, [result.runId], Date.now(), effects.rows);
    return result;
  }

  /** A long-running target is still working: extend its attempt's lease. */
  async heartbeatRun(shard: number, runId: string, fence: number): Promise<Protocol.HeartbeatResult> {
    const result = await this.act(shard, (nowMs) => heartbeatRun(this.state, runId, fence, nowMs));
    // Its flow-control permits last as long as the lease the heartbeat extended.
    if (result.ok) await renewHeld(this.state, this.env, [runId], Date.now());
    return result;
  }

  /**
   * Runs a consumer had no connection for, given back uncalled (claimed or not): due again here,
   * where fair share and the slow-call cap decide when each goes out. Their permits go back with
   * their rate: no call was made.
   */
  async giveBackRuns(shard: number, runs: { runId: string; fence: number }[]): Promise<number> {
    const given = await this.act(shard, (nowMs) => {
      const moved = giveBackRuns(this.state, runs, nowMs);
      this.backlog.afterOutcomes(this.state, windowLimits(shardCount(this.env)), nowMs);
      return moved;
    });
    await releaseFinished(this.state, this.env, given, Date.now(), undefined, { returnRate: true });
    return given.length;
  }

  /** The consumer still holds these claimed runs: their leases go on (src/core/runs/run-leases.ts). */
  async renewLeases(shard: number, runs: Protocol.LeaseRenewal[]): Promise<number> {
    return this.act(shard, (nowMs) => renewLeases(this.state, runs, nowMs), { rearmDuringAlarm: false });
  }

  /** The consumer's word that these claimed runs' calls are slow (src/core/runs/slow-calls.ts). */
  async markSlowCalls(shard: number, runs: { runId: string; fence: number }[]): Promise<number> {
    return this.act(shard, (nowMs) => markSlowCalls(this.state, runs, nowMs), { rearmDuringAlarm: false });
  }

  /** A host's gate says the tenant's calls to the host are (or no longer are) throttled. */
  async noteHostThrottled(shard: number, host: ThrottledHost, throttled: boolean): Promise<void> {
    this.read(shard, () => noteHostThrottled(this.sql, host, throttled, Date.now()));
  }

  /** A flow gate has permits again: its waiting runs here ask at once (see flow-permits.ts). */
  async wakeFlowWaiters(shard: number, gate: string, count: number): Promise<number> {
    return this.act(shard, (nowMs) => pullForwardWaiting(this.state, gate, count, nowMs));
  }

  /** A dispatch message the queue gave up on (the consumer kept failing): dead-letter its run. */
  async deadLetterPoison(shard: number, runId: string, fence: number, reason: string): Promise<boolean> {
    return this.act(shard, (nowMs) => deadLetterPoisonRun(this.state, runId, fence, reason, nowMs));
  }

  /** Maintenance: re-arm a missing alarm, report overdue jobs, prune old runs and history. */
  async watchdog(shard: number, retention: Retention): Promise<Protocol.WatchdogReport> {
    const work = async (nowMs: number) => {
      const alarmAtMs = await this.ctx.storage.getAlarm();
      const report = watchdogScan(this.state, nowMs, retention, alarmAtMs);
      if (this.alarmRunning) return report;
      // Storage is the truth: an alarm lost behind this instance's back rings now (the pass then
      // plans the next), even when storage still holds one: one that never rang is not registered
      // with the runtime's alarm scheduler, and setting the instant storage already holds may
      // change nothing the scheduler sees.
      report.alarmRearmed = alarmWasLost(
        alarmAtMs,
        earliestTimerMs(readDueTimes(this.state, this.leadMs())),
        nowMs,
      );
      if (report.alarmRearmed && !this.testSeam.alarmHeld(nowMs)) {
        await this.armed.apply({ action: "set", atMs: nowMs });
      } else this.armed.atMs = alarmAtMs;
      return report;
    };
    return this.act(shard, work, { rearmDuringAlarm: false });
  }

  // Run history (./history/reads.ts): reads only, so the alarm is left as it is.
  async historyRun(shard: number, tenantId: string, jobId: string, scheduledAtMs: number) {
    return this.read(shard, () => historyRun(this.state, shard, tenantId, jobId, scheduledAtMs));
  }

  async jobHistory(shard: number, query: History.JobHistoryQuery): Promise<History.HistoryRecord[]> {
    return this.read(shard, () => jobHistory(this.state, shard, query));
  }

  async tenantHistory(shard: number, query: History.TenantHistoryQuery): Promise<History.HistoryRecord[]> {
    return this.read(shard, () => tenantHistory(this.state, shard, query));
  }

  /** Several pages of a tenant's runs in one request (the failed and dead-lettered lists together). */
  async tenantHistoryPages(
    shard: number,
    queries: History.TenantHistoryQuery[],
  ): Promise<History.HistoryRecord[][]> {
    return this.read(shard, () => queries.map((query) => tenantHistory(this.state, shard, query)));
  }

  async historyStats(shard: number, query: History.HistoryStatsQuery): Promise<History.HistoryStats> {
    return this.read(shard, () => ({
      ...historyStats(this.state, query),
      shareWait: shareWaitOf(this.state, query.tenantId, Date.now()),
    }));
  }

  async firedSince(shard: number, queries: History.FiredSinceQuery[]): Promise<number[]> {
    return this.read(shard, () => firedSince(this.state, queries));
  }

  /** History records moved in from elsewhere (the legacy D1 table); newer records win. */
  async importHistory(shard: number, records: History.HistoryRecord[]): Promise<number> {
    return this.read(shard, () => importHistory(this.sql, records as unknown as Record<string, unknown>[]));
  }

  /** Admin view: the tz database version of this shard's timers and any re-derivation. */
  async tzdataStatus(shard: number): Promise<Protocol.TzdataProgress> {
    return this.act(shard, () => tzdataProgress(this.state, shard));
  }

  override async alarm(): Promise<void> {
    this.armed.atMs = null;
    this.alarmRunning = true;
    let busy = false;
    try {
      const { state, env, shard, backlog, testSeam } = this;
      // A tz database change first: timers it moves into the past fire in this same pass.
      const rederiving = this.tzdata.pass(shard, testSeam.rederiveBatchJobs());
      busy = (await runAlarmPass({ state, env, shard, backlog, testSeam })) || rederiving;
    } finally {
      this.alarmRunning = false;
      await this.armAlarm(busy);
    }
  }

  /** Test hooks only (fault injection, a lost alarm); throws unless EDGECRON_TEST_HOOKS is "1". */
  async testHook(command: ShardTestCommand): Promise<ShardFaults> {
    return this.testSeam.run(command, this.armed);
  }

  /** Every RPC: remember which shard this is, do the work, keep the alarm at what is due next. */
  private async act<T>(
    shard: number,
    work: (nowMs: number) => T | Promise<T>,
    { faultable = false, rearmDuringAlarm = true }: ActOptions = {},
  ): Promise<T> {
    this.rememberShard(shard);
    if (faultable) await this.testSeam.beforeRpc();
    let result: T;
    try {
      result = await work(Date.now());
    } finally {
      // What the work changed is durable before its answer leaves (the output gate holds it).
      this.state.commit();
    }
    if (rearmDuringAlarm || !this.alarmRunning) await this.armAlarm();
    // Runs this work cancelled while sent give their flow-control permits back (./flow/uncalled-permits.ts).
    const uncalled = takeCancelledUncalled(this.state);
    if (uncalled !== null) {
      const runIds = [...uncalled.runs.keys()];
      await releaseFinished(this.state, this.env, runIds, Date.now(), uncalled, { returnRate: true });
    }
    return result;
  }

  /** A read: the shard is remembered (a fresh instance learns its number) but nothing is armed. */
  private read<T>(shard: number, work: () => T): T {
    this.rememberShard(shard);
    return work();
  }

  private rememberShard(shard: number): void {
    this.tzdata.observe();
    if (this.shard === shard) return;
    this.shard = shard;
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('shard', ?)", shard);
  }

  private leadMs(): number {
    return dispatchLeadMs(this.env.DISPATCH_LEAD_MS);
  }

  /** Keeps the alarm at the earliest thing due (or soon, after a busy pass). */
  private async armAlarm(busy = false): Promise<void> {
    const nowMs = Date.now();
    if (this.testSeam.alarmHeld(nowMs)) return;
    const due = readDueTimes(this.state, this.leadMs());
    const plan = planAlarm({
      due,
      nowMs,
      busy: busy || this.tzdata.pending,
      backpressureUntilMs: this.backlog.backpressureUntilMs,
      flushNotBeforeMs: this.backlog.flushNotBeforeMs(),
      armedAtMs: this.armed.atMs,
    });
    await this.armed.apply(plan);
  }
}
