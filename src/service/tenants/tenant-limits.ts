// A tenant's limits (admission control) and fair-share weight: the admin replaces them, the admin
// and the tenant read them, with the defaults filled in and, when a rate or concurrency limit
// applies, the tenant's dispatch gate as it stands.
import {
  DEFAULT_TENANT_WEIGHT,
  type TenantLimitName,
  type TenantLimits,
  type TenantLimitsPut,
} from "../../core/load/tenant-limits";
import { loadTenantLimits, putTenantLimits } from "../../db/tenant-limits";
import { gateState, tenantGate } from "../../gate/client";
import { tenantLimitDefaults } from "../admission";
import { tellShardsTenantWeight } from "../tenant-fanout";

export interface TenantLimitsView {
  tenantId: string;
  limits: TenantLimits;
  weight: number;
  /** The limits the tenant overrides ("weight" when its weight is set). */
  overridden: (TenantLimitName | "weight")[];
  defaults: TenantLimits;
  defaultWeight: number;
  /** The tenant's dispatch gate; null when no rate or concurrency limit applies. */
  dispatch: { waiting: number; inFlight: number; triggersInWindow: number } | null;
}

export async function readTenantLimits(env: Env, tenantId: string): Promise<TenantLimitsView> {
  const defaults = tenantLimitDefaults(env);
  const { limits, overridden, weight, weightSet } = await loadTenantLimits(env.DB, tenantId, defaults);
  const gated = limits.triggers_per_second !== null || limits.concurrent_calls !== null;
  const state = gated ? await gateState(env, tenantGate(tenantId)) : null;
  return {
    tenantId,
    limits,
    weight,
    overridden: weightSet ? [...overridden, "weight"] : overridden,
    defaults,
    defaultWeight: DEFAULT_TENANT_WEIGHT,
    dispatch:
      state === null
        ? null
        : { waiting: state.waiting, inFlight: state.inFlight, triggersInWindow: state.rateCount },
  };
}

/** Replaces the tenant's limits and weight: absent fields take the defaults, null is no limit. */
export async function replaceTenantLimits(
  env: Env,
  tenantId: string,
  put: TenantLimitsPut,
  nowMs: number,
): Promise<TenantLimitsView> {
  await putTenantLimits(env.DB, tenantId, put, nowMs);
  // The shards split their windows by the new weight at once; one the push misses reads it from
  // D1 with the limits within seconds.
  await tellShardsTenantWeight(env, tenantId, put.weight ?? DEFAULT_TENANT_WEIGHT);
  return readTenantLimits(env, tenantId);
}
