// A key gate's tables (./schema.ts): its limits (gate_meta), the grants in its rate window
// (rate_grants), the parallelism permits in flight (leases), its pause (gate_pause), and the
// holders' reports of runs waiting for it (waiting). The gate's decisions are ./flow-gate.ts's.
import { type FlowLimits, nextAskAtMs } from "../../src/core/load/flow-control";
import type { AcquireRequest } from "../../src/gate/protocol";

/** A holder's report of waiting runs counts until a little after it was told to ask again. */
const WAITING_REPORT_SLACK_MS = 5_000;

export type MetaRow = {
  gate: string;
  key: string;
  rate: number | null;
  period_ms: number;
  parallelism: number | null;
  updated_at_ms: number;
};

export function gateMeta(sql: SqlStorage): MetaRow | null {
  return sql.exec<MetaRow>("SELECT * FROM gate_meta WHERE id = 1").toArray()[0] ?? null;
}

export function limitsOf(meta: MetaRow): FlowLimits {
  return { rate: meta.rate, periodMs: meta.period_ms, parallelism: meta.parallelism };
}

export function setLimits(
  sql: SqlStorage,
  request: Pick<AcquireRequest, "gate" | "key" | "limits">,
  nowMs: number,
): void {
  const { limits } = request;
  sql.exec(
    `INSERT OR REPLACE INTO gate_meta (id, gate, key, rate, period_ms, parallelism, updated_at_ms)
     VALUES (1, ?, ?, ?, ?, ?, ?)`,
    request.gate,
    request.key,
    limits.rate,
    limits.periodMs,
    limits.parallelism,
    nowMs,
  );
}

export function isPaused(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM gate_pause").toArray().length > 0;
}

/** Runs the holders report waiting here, while their reports count. */
export function waitingRuns(sql: SqlStorage, nowMs: number): number {
  return (
    sql
      .exec<{ n: number | null }>("SELECT SUM(runs) AS n FROM waiting WHERE counts_until_ms > ?", nowMs)
      .one().n ?? 0
  );
}

/** Drops grants that left the rate window and leases that expired (never returned). */
export function purge(sql: SqlStorage, limits: FlowLimits, nowMs: number): void {
  sql.exec("DELETE FROM rate_grants WHERE at_ms <= ?", nowMs - limits.periodMs);
  sql.exec("DELETE FROM leases WHERE expires_at_ms <= ?", nowMs);
}

export function grantsInWindow(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rate_grants").one().n;
}

export function oldestGrantMs(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>("SELECT MIN(at_ms) AS at FROM rate_grants").one().at;
}

export function inFlight(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM leases").one().n;
}

export function retryAt(sql: SqlStorage, limits: FlowLimits, nowMs: number): number {
  const rateFull = limits.rate !== null && grantsInWindow(sql) >= limits.rate;
  const parallelismFull = limits.parallelism !== null && inFlight(sql) >= limits.parallelism;
  return nextAskAtMs(limits, { oldestGrantMs: oldestGrantMs(sql), rateFull, parallelismFull }, nowMs);
}

export function reportWaiting(
  sql: SqlStorage,
  holder: number | null,
  runs: number,
  retryAtMs: number | null,
  nowMs: number,
): void {
  if (holder === null) return;
  if (runs === 0) {
    sql.exec("DELETE FROM waiting WHERE holder = ?", holder);
    return;
  }
  sql.exec(
    "INSERT OR REPLACE INTO waiting (holder, runs, counts_until_ms) VALUES (?, ?, ?)",
    holder,
    runs,
    (retryAtMs ?? nowMs) + WAITING_REPORT_SLACK_MS,
  );
}
