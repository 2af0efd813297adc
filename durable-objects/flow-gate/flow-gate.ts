import { DurableObject } from "cloudflare:workers";
import { permitsAvailable } from "../../src/core/load/flow-control";
import { recordFlowControlKey } from "../../src/db/flow-control-keys";
import { forgetThrottledHost, recordThrottledHost } from "../../src/db/throttled-hosts";
import type {
  AcquireRequest,
  AcquireResult,
  GateState,
  HostReportRequest,
  HostReportResult,
  HostThrottleState,
  ReleaseRequest,
  RenewRequest,
} from "../../src/gate/protocol";
import { logEvent } from "../../src/log";
import { meteredEnv, meteredSql, rowsMeterOn } from "../../src/rows-meter";
import { noteHostThrottledOnShards, wakeFlowWaiters } from "../../src/shard/client";
import {
  gateMeta,
  grantsInWindow,
  inFlight,
  isPaused,
  limitsOf,
  oldestGrantMs,
  purge,
  reportWaiting,
  retryAt,
  setLimits,
  waitingRuns,
} from "./gate-tables";
import { acquireHostPermits, applyHostReport, hostThrottleState } from "./host-gate";
import { migrateGateSchema } from "./schema";

/** How soon a run refused by a paused key asks again, beside the wake its resume sends. */
const PAUSED_ASK_AGAIN_MS = 60_000;
/** Resuming wakes every holder that reported waiting runs (each wakes at most its own). */
const WAKE_ALL = 1_000_000;

/**
 * One flow-control key (a tenant's `flow_control.key`, or `tenant:<id>` for the tenant's own
 * trigger and concurrency limits). The single writer of its permits, so the limits hold whatever
 * shard or consumer asks: shards ask once per tick for all of a key's due runs (acquire) and
 * return parallelism permits when a run's outcome is recorded (release); a permit never
 * returned expires with its lease. Rate is a sliding window of grant instants.
 */
export class FlowGate extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.env = meteredEnv(env);
    this.sql = rowsMeterOn(env) ? meteredSql(ctx.storage.sql, "flow-gate") : ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => migrateGateSchema(this.sql));
  }

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const nowMs = Date.now();
    if (request.host === true) {
      const result = acquireHostPermits(this.sql, request, nowMs);
      reportWaiting(
        this.sql,
        request.holder,
        request.runs.length - result.granted.length + (request.alsoWaiting ?? 0),
        result.retryAtMs,
        nowMs,
      );
      return result;
    }
    if (gateMeta(this.sql) === null) await this.recordKey(request, nowMs);
    setLimits(this.sql, request, nowMs);
    const { limits } = request;
    purge(this.sql, limits, nowMs);
    const held = new Set(
      this.sql
        .exec<{ run_id: string }>(
          "SELECT run_id FROM leases WHERE run_id IN (SELECT value FROM json_each(?))",
          JSON.stringify(request.runs.map((run) => run.runId)),
        )
        .toArray()
        .map((row) => row.run_id),
    );
    // A paused key grants no new permit; a run already holding one keeps it (above).
    const paused = isPaused(this.sql);
    let available = paused ? 0 : permitsAvailable(limits, grantsInWindow(this.sql), inFlight(this.sql));
    const granted: string[] = [];
    for (const run of request.runs) {
      // A re-send of a run that still holds its permit (its dispatch lease expired) takes no new one.
      if (held.has(run.runId)) {
        granted.push(run.runId);
        continue;
      }
      if (available <= 0) continue;
      available -= 1;
      granted.push(run.runId);
      if (limits.rate !== null)
        this.sql.exec("INSERT INTO rate_grants (run_id, at_ms) VALUES (?, ?)", run.runId, nowMs);
      if (limits.parallelism !== null) {
        this.sql.exec(
          "INSERT OR REPLACE INTO leases (run_id, holder, expires_at_ms) VALUES (?, ?, ?)",
          run.runId,
          request.holder,
          nowMs + run.leaseMs,
        );
      }
    }
    const refused = request.runs.length - granted.length;
    const retryAtMs =
      refused === 0 ? null : paused ? nowMs + PAUSED_ASK_AGAIN_MS : retryAt(this.sql, limits, nowMs);
    reportWaiting(this.sql, request.holder, refused + (request.alsoWaiting ?? 0), retryAtMs, nowMs);
    return { granted, retryAtMs };
  }

  async release(request: ReleaseRequest): Promise<void> {
    const ids = JSON.stringify(request.runIds);
    const freed = this.sql.exec(
      "DELETE FROM leases WHERE run_id IN (SELECT value FROM json_each(?))",
      ids,
    ).rowsWritten;
    if (request.returnRate) {
      this.sql.exec("DELETE FROM rate_grants WHERE run_id IN (SELECT value FROM json_each(?))", ids);
    }
    if (freed > 0) this.wakeWaiting(freed);
  }

  /**
   * A destination host's answers from one shard's batch of outcomes (a host gate): the throttle
   * starts, is cut, paused or grows back (./host-gate.ts). The D1 index of throttled hosts follows
   * its start and end; freed permits wake waiting runs, and an ended throttle wakes them all.
   */
  async reportHost(request: HostReportRequest): Promise<HostReportResult> {
    const nowMs = Date.now();
    setLimits(
      this.sql,
      {
        ...request,
        key: `host:${request.origin}`,
        limits: { rate: null, periodMs: 1_000, parallelism: null },
      },
      nowMs,
    );
    const effects = applyHostReport(this.sql, request, nowMs);
    if (effects.started || effects.ended) {
      // Not awaited: the shard reporting must not wait on every other shard. The index is written
      // once the shards know, so a host listed as throttled holds on every shard reached.
      const host = { gate: request.gate, tenantId: request.tenantId, origin: request.origin };
      this.ctx.waitUntil(
        noteHostThrottledOnShards(this.env, host, effects.started).then(() =>
          this.indexHost(request, effects.started, nowMs),
        ),
      );
    }
    if (effects.ended) this.wakeWaiting(WAKE_ALL);
    else if (effects.freed > 0) this.wakeWaiting(effects.freed);
    return { throttle: await this.hostState() };
  }

  /** The host's throttle (a host gate); null when it is not throttled. */
  async hostState(): Promise<HostThrottleState | null> {
    const nowMs = Date.now();
    return hostThrottleState(this.sql, waitingRuns(this.sql, nowMs), nowMs);
  }

  private async indexHost(request: HostReportRequest, started: boolean, nowMs: number): Promise<void> {
    try {
      if (started) await recordThrottledHost(this.env.DB, request.tenantId, request.origin, nowMs);
      else await forgetThrottledHost(this.env.DB, request.tenantId, request.origin);
    } catch (error) {
      logEvent("flow_gate.host_unindexed", { gate: request.gate, error });
    }
  }

  async renew(request: RenewRequest): Promise<void> {
    const nowMs = Date.now();
    for (const run of request.runs) {
      this.sql.exec(
        "UPDATE leases SET expires_at_ms = MAX(expires_at_ms, ?) WHERE run_id = ?",
        nowMs + run.leaseMs,
        run.runId,
      );
    }
  }

  /**
   * Ends the rate window now (QStash's `resetRate`): the grants counted in it are forgotten, so
   * the next window starts now, and the runs told to wait for it are woken to ask again.
   * Parallelism permits in flight are not touched: those calls are still running.
   */
  async resetRate(): Promise<number> {
    const cleared = this.sql.exec("DELETE FROM rate_grants").rowsWritten;
    const rate = gateMeta(this.sql)?.rate ?? null;
    if (cleared > 0) this.wakeWaiting(rate ?? cleared);
    return cleared;
  }

  /**
   * Pauses or resumes the key: while paused no run gets a new permit (each waits at its shard,
   * where pause, delete and fair share still apply); a resume wakes the waiting runs.
   */
  async setPaused(paused: boolean): Promise<void> {
    if (paused) {
      this.sql.exec("INSERT OR IGNORE INTO gate_pause (id, paused_at_ms) VALUES (1, ?)", Date.now());
      return;
    }
    if (this.sql.exec("DELETE FROM gate_pause").rowsWritten > 0) this.wakeWaiting(WAKE_ALL);
  }

  async state(): Promise<GateState> {
    const nowMs = Date.now();
    const meta = gateMeta(this.sql);
    const limits = meta === null ? null : limitsOf(meta);
    if (limits !== null) purge(this.sql, limits, nowMs);
    return {
      key: meta?.key ?? null,
      waiting: waitingRuns(this.sql, nowMs),
      inFlight: inFlight(this.sql),
      rateCount: grantsInWindow(this.sql),
      ratePeriodStartMs: oldestGrantMs(this.sql) ?? nowMs,
      limits,
      updatedAtMs: meta?.updated_at_ms ?? null,
      paused: isPaused(this.sql),
    };
  }

  /** First use: the key joins its tenant's list (a failure only delays that to the next first use). */
  private async recordKey(request: AcquireRequest, nowMs: number): Promise<void> {
    if (request.tenantId === null) return;
    try {
      await recordFlowControlKey(this.env.DB, request.tenantId, request.key, nowMs);
    } catch (error) {
      logEvent("flow_gate.key_unrecorded", { gate: request.gate, error });
    }
  }

  /**
   * Permits came back: wake the shards that have runs waiting here (those waiting longest first,
   * at most one per permit), so a run starts when a call ends instead of at its next poll. Not
   * awaited: the release that freed them must not wait on other shards.
   */
  private wakeWaiting(freed: number): void {
    const gate = gateMeta(this.sql)?.gate;
    if (gate === undefined) return;
    const holders = this.sql
      .exec<{ holder: number; runs: number }>(
        "SELECT holder, runs FROM waiting WHERE counts_until_ms > ? ORDER BY counts_until_ms LIMIT ?",
        Date.now(),
        freed,
      )
      .toArray();
    for (const { holder, runs } of holders) {
      wakeFlowWaiters(this.env, holder, gate, Math.min(runs, freed)).catch((error: unknown) =>
        logEvent("flow_gate.wake_failed", { gate, shard: holder, error }),
      );
    }
  }
}
