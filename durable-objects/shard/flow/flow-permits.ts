// The other half of flow control on a shard: parallelism permits go back to their gates when the
// shard records a run's outcome, are renewed while a long-running target works, and a gate that
// has permits again wakes the runs waiting on it here.

import { RUNNING_LEASE_GRACE_MS } from "../../../src/core/runs/run-leases";
import { flowKeyGate, releasePermits, renewPermits, tenantGate } from "../../../src/gate/client";
import { logEvent } from "../../../src/log";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { flowControlOf } from "./flow-admission";
import { endGateHolds } from "./gate-holds";
import { noteGateWake } from "./gate-wakes";
import type { PermitRows, PermitRun } from "./permit-rows";
import { tenantGateLimits } from "./tenant-gates";

/**
 * The runs that hold parallelism permits, by gate (the job's key, the tenant's own limits).
 * `known`: the rows the caller already read for these runs (an outcome batch), read again otherwise.
 */
async function parallelismGatesOf(
  state: ShardState,
  env: Env,
  runIds: readonly string[],
  nowMs: number,
  known?: PermitRows,
): Promise<Map<string, PermitRun[]>> {
  const { runs, jobs } = known === undefined ? readRows(state, runIds) : pickRows(known, runIds);
  const { limits: tenantLimits } = await tenantGateLimits(
    env,
    runs.map((run) => run.tenant_id),
    nowMs,
  );
  const byGate = new Map<string, PermitRun[]>();
  const add = (gate: string, run: PermitRun) => byGate.set(gate, [...(byGate.get(gate) ?? []), run]);
  for (const run of runs) {
    const flow = flowControlOf(state, jobs.get(run.job_id) ?? null);
    if (flow?.parallelism !== undefined) add(flowKeyGate(run.tenant_id, flow.key), run);
    if (tenantLimits.get(run.tenant_id)?.parallelism != null) add(tenantGate(run.tenant_id), run);
  }
  return byGate;
}

function readRows(state: ShardState, runIds: readonly string[]) {
  const runs = runIds.flatMap((runId) => {
    const run = state.runs.get(runId);
    return run === undefined ? [] : [run];
  });
  const jobs = new Map<string, JobRecord>();
  for (const run of runs) {
    const job = state.jobs.get(run.job_id);
    if (job !== undefined) jobs.set(job.job_id, job);
  }
  return { runs, jobs };
}

function pickRows(known: PermitRows, runIds: readonly string[]) {
  const runs = runIds.flatMap((runId) => {
    const run = known.runs.get(runId);
    return run === undefined ? [] : [run];
  });
  return { runs, jobs: known.jobs };
}

async function eachGate(
  byGate: Map<string, PermitRun[]>,
  call: (gate: string, runs: PermitRun[]) => Promise<void>,
): Promise<void> {
  await Promise.all(
    [...byGate].map(([gate, runs]) =>
      call(gate, runs).catch((error: unknown) =>
        logEvent("shard.flow_gate_unreachable", { gate, runs: runs.length, error }),
      ),
    ),
  );
}

/**
 * Returns the parallelism permits of runs whose outcome the shard just recorded (succeeded,
 * retrying, dead-lettered): one release RPC per key. Never throws; a permit not returned expires.
 * `returnRate` for runs given back uncalled: their rate tokens were not spent either.
 */
export async function releaseFinished(
  state: ShardState,
  env: Env,
  runIds: readonly string[],
  nowMs: number,
  known?: PermitRows,
  { returnRate = false }: { returnRate?: boolean } = {},
) {
  if (runIds.length === 0) return;
  const byGate = await parallelismGatesOf(state, env, runIds, nowMs, known);
  await eachGate(byGate, (gate, runs) =>
    releasePermits(env, gate, { runIds: runs.map((run) => run.run_id), returnRate }),
  );
}

/**
 * A long-running target accepted or heartbeated: its permits last as long as its lease on the
 * shard (plus the grace the shard gives it), so a call that is still working keeps its slot.
 */
export async function renewHeld(
  state: ShardState,
  env: Env,
  runIds: readonly string[],
  nowMs: number,
  known?: PermitRows,
) {
  if (runIds.length === 0) return;
  const byGate = await parallelismGatesOf(state, env, runIds, nowMs, known);
  await eachGate(byGate, (gate, runs) =>
    renewPermits(env, gate, {
      runs: runs.map((run) => ({
        runId: run.run_id,
        leaseMs: Math.max(0, (run.due_at_ms ?? nowMs) - nowMs) + RUNNING_LEASE_GRACE_MS,
      })),
    }),
  );
}

/** The gate has permits again: up to `count` of the runs waiting on it ask at the next tick. */
export function pullForwardWaiting(state: ShardState, gate: string, count: number, nowMs: number): number {
  noteGateWake(state, gate, Date.now());
  return endGateHolds(state, gate, count, nowMs);
}
