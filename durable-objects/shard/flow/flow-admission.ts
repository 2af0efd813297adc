// Flow control at dispatch: before a tick hands runs to the queue, every run under a limit (its
// job's flow_control key, its tenant's triggers per second and concurrent calls) gets a permit
// from that key's gate. One acquire RPC per key per tick, whatever the number of runs; refused
// runs stay SCHEDULED with their timer moved to when the gate says to ask again (none dropped,
// none early). Permits are returned when the shard records the run's outcome (flow-permits.ts).
import { durationMs } from "../../../src/core/common/duration";
import { type FlowLimits, flowLimitsOf } from "../../../src/core/load/flow-control";
import { flowWaitReason, hostWaitReason } from "../../../src/core/load/run-waits";
import { RUNNING_LEASE_GRACE_MS } from "../../../src/core/runs/run-leases";
import {
  type AcquireResult,
  acquirePermits,
  flowKeyGate,
  releasePermits,
  tenantGate,
} from "../../../src/gate/client";
import { logEvent } from "../../../src/log";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { holdAtGate, waitingAtGate } from "./gate-holds";
import { nextAskMs } from "./gate-wakes";
import { hostOfRun, noteHostThrottled, type ThrottledHost, throttledHosts } from "./host-throttles";
import { tenantGateLimits } from "./tenant-gates";
import { rememberTenantWeights } from "./tenant-weights";

/** A gate that cannot be reached: its runs ask again this much later. */
const GATE_UNREACHABLE_RETRY_MS = 1_000;

export interface FlowAdmission {
  env: Env;
  /** The shard's number: the holder of its permits at every gate. */
  holder: number;
  /** The dispatch lease: a permit is held at most this plus the run's timeout if never returned. */
  leaseMs: number;
}

interface GateGroup {
  gate: string;
  key: string;
  /** Set for a job key (the gate lists it under its tenant); null for a tenant's own gate. */
  tenantId: string | null;
  limits: FlowLimits;
  runs: Run[];
  /** A destination host's gate: its own adaptive limit applies (./host-throttles.ts). */
  host?: ThrottledHost;
}

/** The runs that may be sent now, in the order given; the rest are moved to their next ask. */
export async function admitFlowControlled(
  state: ShardState,
  admission: FlowAdmission,
  runs: Run[],
  jobs: Map<string, JobRecord | null>,
  nowMs: number,
): Promise<Run[]> {
  if (runs.length === 0) return runs;
  // The runs are live objects: what each was before the gates were awaited is its revision now.
  const revs = new Map(runs.map((run) => [run.run_id, run.rev]));
  const {
    limits: tenantLimits,
    readD1,
    weights,
  } = await tenantGateLimits(
    admission.env,
    runs.map((run) => run.tenant_id),
    nowMs,
  );
  rememberTenantWeights(state.sql, weights, nowMs);
  const byKey = groupByGate(runs, (run) => {
    const flow = flowControlOf(state, jobs.get(run.job_id) ?? null);
    return flow === null
      ? null
      : {
          gate: flowKeyGate(run.tenant_id, flow.key),
          key: flow.key,
          tenantId: run.tenant_id,
          limits: flowLimitsOf(flow),
        };
  });
  const hosts = throttledHosts(state.sql);
  if (byKey.size === 0 && hosts.size === 0 && [...tenantLimits.values()].every((limits) => limits === null)) {
    // Reading D1 let other requests in (a pause may have cancelled a run): send what still stands.
    return readD1 ? stillSendable(state, runs, new Set(), revs) : runs;
  }
  const refused = new Set<string>();
  const grantedByKey = await askGates(state, admission, byKey, jobs, refused, nowMs);
  const grantedByTenant = await askTenantGates(state, admission, runs, tenantLimits, jobs, refused, nowMs);
  // A key permit of a run its tenant's gate refused was never used: give it back, rate included.
  await returnUnused(admission.env, grantedByKey, new Set(grantedByTenant.refused));
  for (const runId of grantedByTenant.refused) refused.add(runId);
  const grantedByHost = await askHostGates(state, admission, runs, hosts, jobs, refused, nowMs);
  // The same for the key and tenant permits of a run its host's throttle holds.
  await returnUnused(
    admission.env,
    new Map([...grantedByKey, ...grantedByTenant.granted]),
    grantedByHost.refused,
  );
  for (const runId of grantedByHost.refused) refused.add(runId);
  const sendable = stillSendable(state, runs, refused, revs);
  // A run that changed while the gates were asked (cancelled, claimed) is not sent: its permits go back.
  const kept = new Set(sendable.map((run) => run.run_id));
  const changed = new Set(
    runs.filter((run) => !refused.has(run.run_id) && !kept.has(run.run_id)).map((run) => run.run_id),
  );
  await returnUnused(
    admission.env,
    new Map([...grantedByKey, ...grantedByTenant.granted, ...grantedByHost.granted]),
    changed,
  );
  return sendable;
}

/**
 * The host gates, for the runs the other gates let through whose (tenant, host) this shard knows
 * is throttled: a host that said "slow down" takes its runs as its limit has room (none before a
 * `Retry-After` pause ends). A host whose throttle ended grants them all and leaves the list.
 */
async function askHostGates(
  state: ShardState,
  admission: FlowAdmission,
  runs: readonly Run[],
  hosts: Map<string, ThrottledHost>,
  jobs: Map<string, JobRecord | null>,
  refusedBefore: ReadonlySet<string>,
  nowMs: number,
): Promise<{ granted: Map<string, string[]>; refused: Set<string> }> {
  const refused = new Set<string>();
  if (hosts.size === 0) return { granted: new Map(), refused };
  const byHost = groupByGate(
    runs.filter((run) => !refusedBefore.has(run.run_id)),
    (run) => {
      const host = hostOfRun(state, jobs.get(run.job_id) ?? null, run.tenant_id);
      if (host === null || !hosts.has(host.gate)) return null;
      const limits = { rate: null, periodMs: 1_000, parallelism: null };
      return { gate: host.gate, key: host.origin, tenantId: run.tenant_id, limits, host };
    },
  );
  const granted = await askGates(state, admission, byHost, jobs, refused, nowMs);
  return { granted, refused };
}

/** The tenant gates (triggers per second, concurrent calls) for the runs their key let through. */
async function askTenantGates(
  state: ShardState,
  admission: FlowAdmission,
  runs: readonly Run[],
  tenantLimits: Map<string, FlowLimits | null>,
  jobs: Map<string, JobRecord | null>,
  refusedByKey: ReadonlySet<string>,
  nowMs: number,
): Promise<{ granted: Map<string, string[]>; refused: string[] }> {
  const byTenant = groupByGate(
    runs.filter((run) => !refusedByKey.has(run.run_id)),
    (run) => {
      const limits = tenantLimits.get(run.tenant_id) ?? null;
      const gate = tenantGate(run.tenant_id);
      return limits === null ? null : { gate, key: gate, tenantId: null, limits };
    },
  );
  const refused = new Set<string>();
  const granted = await askGates(state, admission, byTenant, jobs, refused, nowMs);
  return { granted, refused: [...refused] };
}

export function flowControlOf(state: ShardState, job: JobRecord | null) {
  return job === null ? null : (jobSpec(state, job).flow_control ?? null);
}

function groupByGate(
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
async function askGates(
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

async function returnUnused(
  env: Env,
  grantedByKey: Map<string, string[]>,
  refused: Set<string>,
): Promise<void> {
  if (refused.size === 0) return;
  await Promise.all(
    [...grantedByKey].map(async ([gate, runIds]) => {
      const unused = runIds.filter((runId) => refused.has(runId));
      if (unused.length === 0) return;
      await releasePermits(env, gate, { runIds: unused, returnRate: true }).catch((error: unknown) =>
        logEvent("shard.flow_gate_unreachable", { gate, runs: unused.length, error }),
      );
    }),
  );
}

/**
 * The admitted runs as they are now: the gates were awaited, so a claim, an edit or a delete may
 * have changed a row meanwhile. Only rows still SCHEDULED at the same revision are sent.
 */
function stillSendable(
  state: ShardState,
  runs: readonly Run[],
  refused: Set<string>,
  revs: Map<string, number>,
): Run[] {
  return runs.filter(
    (run) =>
      !refused.has(run.run_id) &&
      state.runs.get(run.run_id) === run &&
      run.state === "SCHEDULED" &&
      revs.get(run.run_id) === run.rev,
  );
}
