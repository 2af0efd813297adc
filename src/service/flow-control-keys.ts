// The tenant's flow-control keys with their live state: the index of keys from D1, then each
// key's gate through the gate client (which reaches gates only, never D1).
import { listFlowControlKeys } from "../db/flow-control-keys";
import { listThrottledHosts } from "../db/throttled-hosts";
import {
  flowControlState,
  type GateState,
  type HostThrottleState,
  hostThrottleOf,
  resetFlowControlRate,
  setFlowControlPaused,
} from "../gate/client";

export type { GateState, HostThrottleState };

/** How many throttled hosts `GET /v1/flow-control` shows. */
export const THROTTLED_HOSTS_SHOWN = 50;

/**
 * The tenant's keys (those a run has used), in name order, each with its state: at most `limit`,
 * after `afterKey` when paging. One gate RPC per key listed.
 */
export async function flowControlStates(
  env: Env,
  tenantId: string,
  options: { limit: number; afterKey?: string },
): Promise<{ key: string; state: GateState }[]> {
  const keys = await listFlowControlKeys(env.DB, tenantId, options.limit, options.afterKey);
  return Promise.all(keys.map(async (key) => ({ key, state: await flowControlState(env, tenantId, key) })));
}

/**
 * The destination hosts the tenant's calls are throttled at, each with its throttle (limit, calls
 * in flight, pause, last signal): the index from D1, then each host's gate. One gate RPC per host.
 */
export async function throttledHostStates(env: Env, tenantId: string): Promise<HostThrottleState[]> {
  const origins = await listThrottledHosts(env.DB, tenantId, THROTTLED_HOSTS_SHOWN);
  const states = await Promise.all(origins.map((origin) => hostThrottleOf(env, tenantId, origin)));
  return states.filter((state): state is HostThrottleState => state !== null);
}

/** One key of the tenant (another tenant's key of the same name is another gate); zeros for a key no run used. */
export function flowControlKeyState(env: Env, tenantId: string, key: string): Promise<GateState> {
  return flowControlState(env, tenantId, key);
}

/** Starts the key's rate window over now; answers the grants it forgot. */
export function resetFlowControlKeyRate(env: Env, tenantId: string, key: string): Promise<number> {
  return resetFlowControlRate(env, tenantId, key);
}

/** Pauses the key (its runs wait at their shards, none is lost) or lets them go again. */
export function setFlowControlKeyPaused(
  env: Env,
  tenantId: string,
  key: string,
  paused: boolean,
): Promise<void> {
  return setFlowControlPaused(env, tenantId, key, paused);
}
