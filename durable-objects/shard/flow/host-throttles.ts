// Per-host adaptive throttle on a shard (issue 25 item 4). The shard tells a host's gate what its
// calls' answers said (a 429, 503 or timeout starts or cuts the throttle; a 2xx grows it back)
// and remembers which (tenant, host) pairs are throttled (schema v21): only their runs ask the
// host gate at dispatch (./flow-admission.ts), so a host never throttled costs no round trip.
import { type HostSignalEvent, hostSignalOf, originOfTarget } from "../../../src/core/load/host-throttle";
import { hostGate, reportHostOutcomes } from "../../../src/gate/client";
import { logEvent } from "../../../src/log";
import type { OutcomeReport, OutcomeResult } from "../../../src/shard/protocol";
import { jobSpec } from "../jobs/job-specs";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import type { PermitRows } from "./permit-rows";

export interface ThrottledHost {
  gate: string;
  tenantId: string;
  origin: string;
}

/** The (tenant, host) pairs this shard knows are throttled, by gate. A small table, read whole. */
export function throttledHosts(sql: SqlStorage): Map<string, ThrottledHost> {
  const rows = sql
    .exec<{ gate: string; tenant_id: string; origin: string }>(
      "SELECT gate, tenant_id, origin FROM host_throttles",
    )
    .toArray();
  return new Map(
    rows.map((row) => [row.gate, { gate: row.gate, tenantId: row.tenant_id, origin: row.origin }]),
  );
}

/** The host gate of a run's job (its tenant's calls to its target's host); null for a binding target. */
export function hostOfRun(state: ShardState, job: JobRecord | null, tenantId: string): ThrottledHost | null {
  if (job === null) return null;
  const origin = originOfTarget(jobSpec(state, job).target);
  return origin === null ? null : { gate: hostGate(tenantId, origin), tenantId, origin };
}

/** The gate said whether the host is throttled: the shard's list follows it. */
export function noteHostThrottled(
  sql: SqlStorage,
  host: ThrottledHost,
  throttled: boolean,
  nowMs: number,
): void {
  if (throttled) {
    sql.exec(
      "INSERT OR IGNORE INTO host_throttles (gate, tenant_id, origin, since_ms) VALUES (?, ?, ?, ?)",
      host.gate,
      host.tenantId,
      host.origin,
      nowMs,
    );
  } else sql.exec("DELETE FROM host_throttles WHERE gate = ?", host.gate);
}

interface HostBatch {
  host: ThrottledHost;
  signals: HostSignalEvent[];
  successes: number;
  endedRunIds: string[];
}

/**
 * After a batch of outcomes: one report per host that said "slow down" or is throttled already
 * (its 2xx grow the limit back, its ended calls return their permits). Never throws: a report
 * lost only delays the throttle to the host's next answer.
 */
export async function reportHostAnswers(
  state: ShardState,
  env: Env,
  reports: readonly OutcomeReport[],
  results: readonly OutcomeResult[],
  rows: PermitRows | undefined,
  nowMs: number,
): Promise<void> {
  if (rows === undefined) return;
  const { sql } = state;
  const known = throttledHosts(sql);
  const batches = new Map<string, HostBatch>();
  reports.forEach((report, index) => {
    const result = results[index];
    const run = rows.runs.get(report.runId);
    if (result?.ok !== true || run === undefined) return;
    const signal = hostSignalOf(report.outcome);
    const slowDown = signal !== null && signal !== "ok";
    // The hot path: an answer that does not say "slow down", with no host throttled here.
    if (!slowDown && known.size === 0) return;
    const host = hostOfRun(state, rows.jobs.get(run.job_id) ?? null, run.tenant_id);
    if (host === null || (!slowDown && !known.has(host.gate))) return;
    const batch = batches.get(host.gate) ?? { host, signals: [], successes: 0, endedRunIds: [] };
    batches.set(host.gate, batch);
    if (signal === "ok") batch.successes += 1;
    else if (signal !== null) batch.signals.push(signal);
    if (result.state !== "RUNNING") batch.endedRunIds.push(report.runId);
  });
  await Promise.all(
    [...batches.values()].map(async ({ host, signals, successes, endedRunIds }) => {
      try {
        const { throttle } = await reportHostOutcomes(env, {
          gate: host.gate,
          tenantId: host.tenantId,
          origin: host.origin,
          signals,
          successes,
          endedRunIds,
        });
        noteHostThrottled(sql, host, throttle !== null, nowMs);
      } catch (error) {
        logEvent("shard.flow_gate_unreachable", { gate: host.gate, runs: endedRunIds.length, error });
      }
    }),
  );
}
