// Per-tenant limits (admission control): what each limit bounds, how a deployment's defaults and
// a tenant's overrides combine. Pure: the values come from env vars and D1 rows passed in.
import { z } from "zod";

/** Every limit, in the order the API and console show them. */
export const TENANT_LIMIT_NAMES = [
  "active_jobs",
  "creates_per_second",
  "triggers_per_second",
  "concurrent_calls",
] as const;
export type TenantLimitName = (typeof TENANT_LIMIT_NAMES)[number];

/** A limit's value: a positive integer, or null for "no limit". */
export type TenantLimits = Record<TenantLimitName, number | null>;

/** The env var that sets each limit's deployment-wide default (wrangler.toml [vars]). */
export const TENANT_LIMIT_VARS: Record<TenantLimitName, string> = {
  active_jobs: "TENANT_MAX_ACTIVE_JOBS",
  creates_per_second: "TENANT_MAX_CREATES_PER_SECOND",
  triggers_per_second: "TENANT_MAX_TRIGGERS_PER_SECOND",
  concurrent_calls: "TENANT_MAX_CONCURRENT_CALLS",
};

/** Used when the var is unset or not a whole number: generous, so limits are opt-in per tenant. */
const BUILT_IN_DEFAULTS: TenantLimits = {
  active_jobs: 100_000,
  creates_per_second: 2_000,
  triggers_per_second: null,
  concurrent_calls: null,
};

export const MAX_LIMIT_VALUE = 1_000_000_000;

/** One limit in a PUT body: a positive integer, or null for no limit; absent: the default. */
const limitValueSchema = z.number().int().min(1).max(MAX_LIMIT_VALUE).nullable().optional();

/** Every tenant's weight unless the admin sets another: equal shares. */
export const DEFAULT_TENANT_WEIGHT = 1;
/** A weight above this would let one tenant's share round every other tenant's down to one slot. */
export const MAX_TENANT_WEIGHT = 100;

/**
 * A tenant's weight in the fair share of a saturated dispatch window: a whole number in
 * 1..MAX_TENANT_WEIGHT; absent, the default.
 */
const weightSchema = z.number().int().min(1).max(MAX_TENANT_WEIGHT).optional();

export const tenantLimitsPutSchema = z.strictObject({
  active_jobs: limitValueSchema,
  creates_per_second: limitValueSchema,
  triggers_per_second: limitValueSchema,
  concurrent_calls: limitValueSchema,
  weight: weightSchema,
});
export type TenantLimitsPut = z.infer<typeof tenantLimitsPutSchema>;

/** A var's value as a limit: "0" is no limit; anything not a whole number, the built-in default. */
function limitFromVar(value: string | undefined, fallback: number | null): number | null {
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) return fallback;
  return parsed === 0 ? null : parsed;
}

/**
 * The deployment's defaults from its vars.
 *
 * @example defaultTenantLimits({ TENANT_MAX_ACTIVE_JOBS: "50" }).active_jobs === 50
 */
export function defaultTenantLimits(vars: Readonly<Record<string, unknown>>): TenantLimits {
  const limits = { ...BUILT_IN_DEFAULTS };
  for (const name of TENANT_LIMIT_NAMES) {
    const raw = vars[TENANT_LIMIT_VARS[name]];
    limits[name] = limitFromVar(typeof raw === "string" ? raw : undefined, BUILT_IN_DEFAULTS[name]);
  }
  return limits;
}

/**
 * A tenant's overrides as stored: undefined (column NULL) takes the default, 0 is "no limit".
 *
 * @example effectiveLimits(defaults, { active_jobs: 0 }).active_jobs === null
 */
export function effectiveLimits(
  defaults: TenantLimits,
  stored: Partial<Record<TenantLimitName, number | null>>,
): TenantLimits {
  const limits = { ...defaults };
  for (const name of TENANT_LIMIT_NAMES) {
    const value = stored[name];
    if (value === undefined || value === null) continue;
    limits[name] = value === 0 ? null : value;
  }
  return limits;
}

/**
 * A tenant's weight as stored: NULL (or anything out of range) is the default.
 *
 * @example effectiveWeight(null) === 1
 */
export function effectiveWeight(stored: number | null | undefined): number {
  return typeof stored === "number" && Number.isInteger(stored) && stored >= 1 && stored <= MAX_TENANT_WEIGHT
    ? stored
    : DEFAULT_TENANT_WEIGHT;
}
