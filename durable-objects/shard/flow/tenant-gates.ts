// Which tenants have their own dispatch limits (triggers per second, concurrent calls), read
// from D1 and kept for a few seconds per shard instance: a tick consults it for every tenant
// with due runs, and D1 is read only when an entry is missing or stale.
import type { FlowLimits } from "../../../src/core/load/flow-control";
import { defaultTenantLimits, effectiveLimits, effectiveWeight } from "../../../src/core/load/tenant-limits";
import { findTenantLimits, type StoredLimits } from "../../../src/db/tenant-limits";
import { logEvent } from "../../../src/log";

/** How long a shard trusts what it read: a limit the admin changes applies within this. */
export const TENANT_LIMITS_CACHE_MS = 10_000;
/** After a failed read, the shard goes on with the defaults for this long before trying again. */
const FAILED_READ_RETRY_MS = 1_000;

interface Cached {
  limits: FlowLimits | null;
  /** Null after a failed read: the default weight would be a guess, the shard keeps its own. */
  weight: number | null;
  untilMs: number;
}

/** Each tenant's fair-share weight as D1 had it at the last read (./tenant-weights.ts keeps them). */
export type ReadWeights = Map<string, number>;

const cache = new Map<string, Cached>();

/** The tenant gate's limits from the tenant's triggers_per_second and concurrent_calls; null: none. */
function gateLimitsOf(limits: { triggers_per_second: number | null; concurrent_calls: number | null }) {
  if (limits.triggers_per_second === null && limits.concurrent_calls === null) return null;
  return { rate: limits.triggers_per_second, periodMs: 1_000, parallelism: limits.concurrent_calls };
}

/**
 * Each tenant's gate limits (null: the tenant has no dispatch limits), and whether D1 was read
 * for them (the caller awaited real I/O, so other requests may have run meanwhile), with the
 * tenants' weights as last read (a tenant whose read failed is absent). Never throws. The cache is
 * the isolate's, shared by its shards: each shard is given the weights, not only the one that read.
 */
export async function tenantGateLimits(
  env: Env,
  tenantIds: readonly string[],
  nowMs: number,
): Promise<{ limits: Map<string, FlowLimits | null>; readD1: boolean; weights: ReadWeights }> {
  const result = new Map<string, FlowLimits | null>();
  const missing: string[] = [];
  const weights: ReadWeights = new Map();
  for (const tenantId of new Set(tenantIds)) {
    const cached = cache.get(tenantId);
    if (cached !== undefined && cached.untilMs > nowMs) {
      result.set(tenantId, cached.limits);
      if (cached.weight !== null) weights.set(tenantId, cached.weight);
    } else missing.push(tenantId);
  }
  if (missing.length === 0) return { limits: result, readD1: false, weights };
  const defaults = defaultTenantLimits(env as unknown as Record<string, unknown>);
  let stored = new Map<string, StoredLimits>();
  let untilMs = nowMs + TENANT_LIMITS_CACHE_MS;
  let readOk = true;
  try {
    stored = await findTenantLimits(env.DB, missing);
  } catch (error) {
    logEvent("shard.tenant_limits_unreadable", { tenants: missing.length, error });
    untilMs = nowMs + FAILED_READ_RETRY_MS;
    readOk = false;
  }
  for (const tenantId of missing) {
    const row = stored.get(tenantId) ?? {};
    const limits = gateLimitsOf(effectiveLimits(defaults, row));
    const weight = readOk ? effectiveWeight(row.weight) : null;
    cache.set(tenantId, { limits, weight, untilMs });
    result.set(tenantId, limits);
    if (weight !== null) weights.set(tenantId, weight);
  }
  return { limits: result, readD1: true, weights };
}

/**
 * Forgets what this isolate read of the tenant: the admin changed its limits or weight and pushed
 * the change, which an older read must not overwrite.
 */
export function forgetTenantLimits(tenantId: string): void {
  cache.delete(tenantId);
}
