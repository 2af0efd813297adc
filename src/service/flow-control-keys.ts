// The tenant's flow-control keys with their live state: the index of keys from D1, then each
// key's gate through the gate client (which reaches gates only, never D1).
import { listFlowControlKeys } from "../db/flow-control-keys";
import { flowControlState, type GateState } from "../gate/client";

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
