// Flow control at dispatch: before a tick hands runs to the queue, every run under a limit (its
// job's flow_control key, its tenant's triggers per second and concurrent calls) gets a permit
// from that key's gate. One acquire RPC per key per tick, whatever the number of runs; refused
// runs stay SCHEDULED with their timer moved to when the gate says to ask again (none dropped,
// none early). Permits are returned when the shard records the run's outcome (flow-permits.ts).
import { type FlowLimits, flowLimitsOf } from "../../../src/core/load/flow-control";
import { flowKeyGate, releasePermits, tenantGate } from "../../../src/gate/client";
import { logEvent } from "../../../src/log";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { askGates, type FlowAdmission, groupByGate } from "./gate-asks";
import { hostOfRun, type ThrottledHost, throttledHosts } from "./host-throttles";
import { tenantGateLimits } from "./tenant-gates";
import { rememberTenantWeights } from "./tenant-weights";

// What a dispatch pass admits with (../dispatch/pass-settings.ts): part of this entry point.
export type { FlowAdmission } from "./gate-asks";

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
