// The only way to a FlowGate: every call goes through a function here (like src/shard/client.ts
// for shards). A gate is named for its tenant and key, so two tenants' keys never meet.
import type {
  AcquireRequest,
  AcquireResult,
  GateState,
  HostReportRequest,
  HostReportResult,
  HostThrottleState,
  ReleaseRequest,
  RenewRequest,
} from "./protocol";

export type {
  AcquireRequest,
  AcquireResult,
  GateState,
  HostReportRequest,
  HostReportResult,
  HostThrottleState,
  ReleaseRequest,
  RenewRequest,
} from "./protocol";

/** The gate of a job's `flow_control.key` within its tenant. */
export function flowKeyGate(tenantId: string, key: string): string {
  return `fc:${tenantId}:${key}`;
}

/** The gate of the tenant's own limits (triggers per second, concurrent calls). */
export function tenantGate(tenantId: string): string {
  return `tenant:${tenantId}`;
}

/** The gate of a destination host (scheme, host, port) for one tenant's calls: its adaptive throttle. */
export function hostGate(tenantId: string, origin: string): string {
  return `host:${tenantId}:${origin}`;
}

/** Tells a host's gate what a batch of outcomes said about the host. Throws if unreachable. */
export async function reportHostOutcomes(env: Env, request: HostReportRequest): Promise<HostReportResult> {
  return gateStub(env, request.gate).reportHost(request);
}

/** The throttle of the tenant's calls to `origin`; null when the host is not throttled. */
export async function hostThrottleOf(
  env: Env,
  tenantId: string,
  origin: string,
): Promise<HostThrottleState | null> {
  return gateStub(env, hostGate(tenantId, origin)).hostState();
}

function gateStub(env: Env, gate: string) {
  return env.FLOW_GATE.getByName(gate);
}

/** Asks for permits for these runs; throws if the gate is unreachable (the caller makes them wait). */
export async function acquirePermits(
  env: Env,
  gate: string,
  request: AcquireRequest,
): Promise<AcquireResult> {
  return gateStub(env, gate).acquire(request);
}

/** Returns permits (a run's outcome was recorded, or it never started). Throws if unreachable. */
export async function releasePermits(env: Env, gate: string, request: ReleaseRequest): Promise<void> {
  await gateStub(env, gate).release(request);
}

/** Extends permits still held (a long-running call heartbeated). Throws if unreachable. */
export async function renewPermits(env: Env, gate: string, request: RenewRequest): Promise<void> {
  await gateStub(env, gate).renew(request);
}

/** A key's state: waiting runs, calls in flight, grants in the current rate window, limits. */
export async function gateState(env: Env, gate: string): Promise<GateState> {
  return gateStub(env, gate).state();
}

/** Ends the rate window of a tenant's flow-control key now; answers the grants it forgot. */
export async function resetFlowControlRate(env: Env, tenantId: string, key: string): Promise<number> {
  return gateStub(env, flowKeyGate(tenantId, key)).resetRate();
}

/** Pauses or resumes a tenant's flow-control key at its gate. */
export async function setFlowControlPaused(
  env: Env,
  tenantId: string,
  key: string,
  paused: boolean,
): Promise<void> {
  await gateStub(env, flowKeyGate(tenantId, key)).setPaused(paused);
}

/** The state of a tenant's flow-control key (`GET /v1/flow-control/{key}`). */
export async function flowControlState(env: Env, tenantId: string, key: string): Promise<GateState> {
  return gateState(env, flowKeyGate(tenantId, key));
}
