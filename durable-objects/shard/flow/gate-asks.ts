// Asking flow gates for permits: runs grouped by the gate that limits them, one acquire RPC per gate
// (in parallel), and the runs a gate refused moved to when it says to ask again.
import { durationMs } from "../../../src/core/common/duration";
import type { FlowLimits } from "../../../src/core/load/flow-control";
import { flowWaitReason, hostWaitReason } from "../../../src/core/load/run-waits";
import { RUNNING_LEASE_GRACE_MS } from "../../../src/core/runs/run-leases";
import { type AcquireResult, acquirePermits } from "../../../src/gate/client";
import { logEvent } from "../../../src/log";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { holdAtGate, waitingAtGate } from "./gate-holds";
import { nextAskMs } from "./gate-wakes";
import { noteHostThrottled, type ThrottledHost } from "./host-throttles";

/** A gate that cannot be reached: its runs ask again this much later. */
const GATE_UNREACHABLE_RETRY_MS = 1_000;

export interface FlowAdmission {
  env: Env;
  /** The shard's number: the holder of its permits at every gate. */
  holder: number;
  /** The dispatch lease: a permit is held at most this plus the run's timeout if never returned. */
  leaseMs: number;
}

export interface GateGroup {
  gate: string;
  key: string;
  /** Set for a job key (the gate lists it under its tenant); null for a tenant's own gate. */
  tenantId: string | null;
  limits: FlowLimits;
  runs: Run[];
  /** A destination host's gate: its own adaptive limit applies (./host-throttles.ts). */
  host?: ThrottledHost;
}

export function groupByGate(
  runs: readonly Run[],
  gateOf: (run: Run) => Omit<GateGroup, "runs"> | null,
): Map<string, GateGroup> {
  const groups = new Map<string, GateGroup>();
  for (const run of runs) {
    const target = gateOf(run);
    if (target === null) continue;
    const group = groups.get(target.gate);
    // Jobs of one key with different limits: the last run's job sets them (the latest to ask).
    if (group === undefined) groups.set(target.gate, { ...target, runs: [run] });
    else {
      group.limits = target.limits;
      group.runs.push(run);
    }
  }
  return groups;
}

/** Asks each gate (in parallel) for its runs; adds the refused to `refused`; returns the grants per gate. */
export async function askGates(
  state: ShardState,
  admission: FlowAdmission,
  groups: Map<string, GateGroup>,
  jobs: Map<string, JobRecord | null>,
  refused: Set<string>,
  nowMs: number,
): Promise<Map<string, string[]>> {
  const granted = new Map<string, string[]>();
  await Promise.all(
    [...groups.values()].map(async (group) => {
      let result: AcquireResult;
      const askedAtMs = Date.now();
      try {
        result = await acquirePermits(admission.env, group.gate, {
          gate: group.gate,
          key: group.key,
          tenantId: group.tenantId,
          limits: group.limits,
          holder: admission.holder,
          alsoWaiting: waitingAtGate(state, group.gate, group.runs, nowMs),
          ...(group.host === undefined ? {} : { host: true }),
          runs: group.runs.map((run) => ({
            runId: run.run_id,
            leaseMs: permitLeaseMs(state, admission, jobs, run),
          })),
        });
      } catch (error) {
        logEvent("shard.flow_gate_unreachable", { gate: group.gate, runs: group.runs.length, error });
        result = { granted: [], retryAtMs: nowMs + GATE_UNREACHABLE_RETRY_MS };
      }
      const grantedIds = new Set(result.granted);
      granted.set(group.gate, result.granted);
      const waiting = group.runs.filter((run) => !grantedIds.has(run.run_id));
      for (const run of waiting) refused.add(run.run_id);
      if (group.host !== undefined && result.hostThrottled === false) {
        noteHostThrottled(state.sql, group.host, false, nowMs);
      }
      const retryAtMs = nextAskMs(state, group.gate, askedAtMs, result.retryAtMs ?? nowMs + 1, nowMs);
      deferRuns(state, waiting, group, { ...result, retryAtMs }, nowMs);
    }),
  );
  return granted;
}

/** A permit never returned expires after the dispatch lease, the run's timeout and its grace. */
function permitLeaseMs(
  state: ShardState,
  admission: FlowAdmission,
  jobs: Map<string, JobRecord | null>,
  run: Run,
): number {
  const job = jobs.get(run.job_id) ?? null;
  const timeoutMs = job === null ? 30_000 : durationMs(jobSpec(state, job).timeout);
  return admission.leaseMs + timeoutMs + RUNNING_LEASE_GRACE_MS;
}

/**
 * Moves refused runs to their next ask, noting the gate they wait on (so the gate can wake them).
 * Under a rate, the k-th waiting run asks one period later per `rate` runs ahead of it: a long
 * wait list comes back a window at a time instead of all at once on every tick (the gate still
 * decides; this only saves asking). A run that starts waiting on this gate gets the wait in its
 * history (once, not per ask), and how long the gate holds it past its fire time (its lateness
 * split, src/core/load/run-waits.ts).
 */
function deferRuns(
  state: ShardState,
  runs: readonly Run[],
  group: GateGroup,
  result: AcquireResult,
  nowMs: number,
): void {
  if (runs.length === 0) return;
  const { limits } = group;
  const retryAtMs = result.retryAtMs ?? nowMs + 1;
  const reason =
    group.host !== undefined
      ? hostWaitReason(group.key, result.hostLimit ?? 1, result.hostPausedUntilMs ?? null)
      : flowWaitReason(group.tenantId === null ? null : group.key, limits);
  const heldBy =
    group.host !== undefined ? "host_throttled" : group.tenantId === null ? "tenant_limits" : "flow_control";
  runs.forEach((run, index) => {
    const windowsAhead = limits.rate === null ? 0 : Math.floor(index / limits.rate);
    const dueAtMs = retryAtMs + windowsAhead * limits.periodMs;
    holdAtGate(state, { runId: run.run_id, dueAtMs, gate: group.gate, reason, heldBy }, nowMs);
  });
}
