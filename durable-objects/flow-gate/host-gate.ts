// The host half of a FlowGate (a gate named by hostGate): permits under the host's adaptive
// limit, and the outcomes that move it. Leases are the gate's own table, as for parallelism.
import { nextAskAtMs } from "../../src/core/load/flow-control";
import {
  type HostThrottle,
  throttleAfterSignal,
  throttleAfterSuccesses,
  throttledPermits,
} from "../../src/core/load/host-throttle";
import type {
  AcquireRequest,
  AcquireResult,
  HostReportRequest,
  HostThrottleState,
} from "../../src/gate/protocol";
import { readHostThrottle, writeHostThrottle } from "./host-throttle-store";

function inFlight(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM leases").one().n;
}

/** Grants what the host's limit has room for; a host not throttled grants every run, holding nothing. */
export function acquireHostPermits(sql: SqlStorage, request: AcquireRequest, nowMs: number): AcquireResult {
  const stored = readHostThrottle(sql);
  if (stored === null) {
    return { granted: request.runs.map((run) => run.runId), retryAtMs: null, hostThrottled: false };
  }
  sql.exec("DELETE FROM leases WHERE expires_at_ms <= ?", nowMs);
  const held = new Set(
    sql
      .exec<{ run_id: string }>(
        "SELECT run_id FROM leases WHERE run_id IN (SELECT value FROM json_each(?))",
        JSON.stringify(request.runs.map((run) => run.runId)),
      )
      .toArray()
      .map((row) => row.run_id),
  );
  const { throttle } = stored;
  let { permits, pausedUntilMs } = throttledPermits(throttle, inFlight(sql), nowMs);
  const granted: string[] = [];
  for (const run of request.runs) {
    if (held.has(run.runId)) {
      granted.push(run.runId);
      continue;
    }
    if (permits <= 0) continue;
    permits -= 1;
    granted.push(run.runId);
    sql.exec(
      "INSERT OR REPLACE INTO leases (run_id, holder, expires_at_ms) VALUES (?, ?, ?)",
      run.runId,
      request.holder,
      nowMs + run.leaseMs,
    );
  }
  const refused = granted.length < request.runs.length;
  const limits = { rate: null, periodMs: 1_000, parallelism: Math.floor(throttle.limit) };
  const retryAtMs = !refused
    ? null
    : (pausedUntilMs ??
      nextAskAtMs(limits, { oldestGrantMs: null, rateFull: false, parallelismFull: true }, nowMs));
  return {
    granted,
    retryAtMs,
    hostThrottled: true,
    hostLimit: throttle.limit,
    hostPausedUntilMs: throttle.pausedUntilMs,
  };
}

export interface HostReportEffects {
  throttle: HostThrottle | null;
  /** The throttle started with this report (the host joins the tenant's index). */
  started: boolean;
  /** It ended with this report (the host leaves the index). */
  ended: boolean;
  /** Permits the ended calls gave back. */
  freed: number;
}

/** Applies a batch of the host's answers: signals cut (and pause), successes grow the limit back. */
export function applyHostReport(
  sql: SqlStorage,
  request: HostReportRequest,
  nowMs: number,
): HostReportEffects {
  const stored = readHostThrottle(sql);
  let throttle = stored?.throttle ?? null;
  for (const event of request.signals) throttle = throttleAfterSignal(throttle, event, nowMs);
  if (throttle !== null && request.successes > 0) {
    throttle = throttleAfterSuccesses(throttle, request.successes, nowMs);
  }
  let freed = sql.exec(
    "DELETE FROM leases WHERE run_id IN (SELECT value FROM json_each(?))",
    JSON.stringify(request.endedRunIds),
  ).rowsWritten;
  // The throttle ended: no permit is held any more (the calls still out need none).
  if (throttle === null) freed += sql.exec("DELETE FROM leases").rowsWritten;
  writeHostThrottle(sql, request.tenantId, request.origin, throttle);
  return {
    throttle,
    started: stored === null && throttle !== null,
    ended: stored !== null && throttle === null,
    freed,
  };
}

/** The host's throttle as the API shows it; null when the host is not throttled. */
export function hostThrottleState(sql: SqlStorage, waiting: number, nowMs: number): HostThrottleState | null {
  const stored = readHostThrottle(sql);
  if (stored === null) return null;
  sql.exec("DELETE FROM leases WHERE expires_at_ms <= ?", nowMs);
  const { throttle } = stored;
  return {
    origin: stored.origin,
    limit: throttle.limit,
    inFlight: inFlight(sql),
    pausedUntilMs:
      throttle.pausedUntilMs !== null && throttle.pausedUntilMs > nowMs ? throttle.pausedUntilMs : null,
    lastSignal: throttle.lastSignal,
    lastSignalAtMs: throttle.lastSignalAtMs,
    waiting,
  };
}
