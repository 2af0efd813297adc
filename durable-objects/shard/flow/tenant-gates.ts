// Which tenants have their own dispatch limits (triggers per second, concurrent calls), read
// from D1 and kept for a few seconds per shard instance: a tick consults it for every tenant
// with due runs, and D1 is read only when an entry is missing or stale.
import type { FlowLimits } from "../../../src/core/flow-control";
import { defaultTenantLimits, effectiveLimits } from "../../../src/core/tenant-limits";
import { findTenantLimits } from "../../../src/db/tenant-limits";
import { logEvent } from "../../../src/log";

/** How long a shard trusts what it read: a limit the admin changes applies within this. */
export const TENANT_LIMITS_CACHE_MS = 10_000;
/** After a failed read, the shard goes on with the defaults for this long before trying again. */
const FAILED_READ_RETRY_MS = 1_000;

interface Cached {
  limits: FlowLimits | null;
  untilMs: number;
}

const cache = new Map<string, Cached>();

/** The tenant gate's limits from the tenant's triggers_per_second and concurrent_calls; null: none. */
function gateLimitsOf(limits: { triggers_per_second: number | null; concurrent_calls: number | null }) {
  if (limits.triggers_per_second === null && limits.concurrent_calls === null) return null;
  return { rate: limits.triggers_per_second, periodMs: 1_000, parallelism: limits.concurrent_calls };
}

/**
 * Each tenant's gate limits (null: the tenant has no dispatch limits), and whether D1 was read
 * for them (the caller awaited real I/O, so other requests may have run meanwhile). Never throws.
 */
export async function tenantGateLimits(
  env: Env,
  tenantIds: readonly string[],
  nowMs: number,
): Promise<{ limits: Map<string, FlowLimits | null>; readD1: boolean }> {
  const result = new Map<string, FlowLimits | null>();
  const missing: string[] = [];
  for (const tenantId of new Set(tenantIds)) {
    const cached = cache.get(tenantId);
    if (cached !== undefined && cached.untilMs > nowMs) result.set(tenantId, cached.limits);
    else missing.push(tenantId);
  }
  if (missing.length === 0) return { limits: result, readD1: false };
  const defaults = defaultTenantLimits(env as unknown as Record<string, unknown>);
  let stored = new Map<string, Parameters<typeof effectiveLimits>[1]>();
  let untilMs = nowMs + TENANT_LIMITS_CACHE_MS;
  try {
    stored = await findTenantLimits(env.DB, missing);
  } catch (error) {
    logEvent("shard.tenant_limits_unreadable", { tenants: missing.length, error });
    untilMs = nowMs + FAILED_READ_RETRY_MS;
  }
  for (const tenantId of missing) {
    const limits = gateLimitsOf(effectiveLimits(defaults, stored.get(tenantId) ?? {}));
    cache.set(tenantId, { limits, untilMs });
    result.set(tenantId, limits);
  }
  return { limits: result, readD1: true };
}
