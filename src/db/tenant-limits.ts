// Tenant limits in D1 (migration 0012): the admin's overrides per tenant, and the one-second
// window the create path counts into. Columns: NULL takes the deployment default, 0 is no limit.
import {
  effectiveLimits,
  effectiveWeight,
  TENANT_LIMIT_NAMES,
  type TenantLimitName,
  type TenantLimits,
  type TenantLimitsPut,
} from "../core/load/tenant-limits";
import { allJobSources, type JobStores } from "./databases";

export type StoredLimits = Partial<Record<TenantLimitName, number | null>> & { weight?: number | null };
type LimitsRow = Record<TenantLimitName, number | null> & {
  tenant_id: string;
  /** Migration 0045: the tenant's fair-share weight, NULL for the default. */
  weight: number | null;
  updated_at_ms: number;
};

/** The stored overrides of these tenants (one query); a tenant with none is absent. */
export async function findTenantLimits(
  db: D1Database,
  tenantIds: readonly string[],
): Promise<Map<string, StoredLimits>> {
  if (tenantIds.length === 0) return new Map();
  const { results } = await db
    .prepare("SELECT * FROM tenant_limits WHERE tenant_id IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(tenantIds))
    .all<LimitsRow>();
  return new Map(results.map((row) => [row.tenant_id, row]));
}

/** A tenant's limits with the defaults filled in, and which of them it overrides. */
export async function loadTenantLimits(
  db: D1Database,
  tenantId: string,
  defaults: TenantLimits,
): Promise<{ limits: TenantLimits; overridden: TenantLimitName[]; weight: number; weightSet: boolean }> {
  const stored = (await findTenantLimits(db, [tenantId])).get(tenantId) ?? {};
  const overridden = TENANT_LIMIT_NAMES.filter((name) => stored[name] !== null && stored[name] !== undefined);
  const weightSet = stored.weight !== null && stored.weight !== undefined;
  return {
    limits: effectiveLimits(defaults, stored),
    overridden,
    weight: effectiveWeight(stored.weight),
    weightSet,
  };
}

/**
 * Replaces a tenant's overrides: an absent field goes back to the default, null is no limit (the
 * weight: absent is the default weight).
 */
export async function putTenantLimits(
  db: D1Database,
  tenantId: string,
  put: TenantLimitsPut,
  nowMs: number,
): Promise<void> {
  const column = (name: TenantLimitName) => {
    const value = put[name];
    return value === undefined ? null : value === null ? 0 : value;
  };
  await db
    .prepare(
      `INSERT INTO tenant_limits (tenant_id, active_jobs, creates_per_second, triggers_per_second,
         concurrent_calls, weight, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id) DO UPDATE SET active_jobs = excluded.active_jobs,
         creates_per_second = excluded.creates_per_second, triggers_per_second = excluded.triggers_per_second,
         concurrent_calls = excluded.concurrent_calls, weight = excluded.weight,
         updated_at_ms = excluded.updated_at_ms`,
    )
    .bind(
      tenantId,
      column("active_jobs"),
      column("creates_per_second"),
      column("triggers_per_second"),
      column("concurrent_calls"),
      put.weight ?? null,
      nowMs,
    )
    .run();
}

/** Jobs of the tenant that hold a schedule: ACTIVE or PAUSED (COMPLETED and DELETED do not). */
export async function countActiveJobs(stores: JobStores, tenantId: string): Promise<number> {
  const counts = await Promise.all(
    allJobSources(stores).map((db) =>
      db
        // An ACTIVE job past its end (src/core/jobs/job-end.ts) reads COMPLETED: it holds no schedule.
        .prepare(
          `SELECT COUNT(*) AS n FROM jobs WHERE tenant_id = ? AND (status = 'PAUSED'
             OR (status = 'ACTIVE' AND (ends_at_ms IS NULL OR ends_at_ms > ?)))`,
        )
        .bind(tenantId, Date.now())
        .first<{ n: number }>(),
    ),
  );
  return counts.reduce((sum, row) => sum + (row?.n ?? 0), 0);
}

/**
 * Counts `count` creates into the tenant's current one-second window if the window stays within
 * `perSecond`; false (nothing counted) when it would not. One statement, so concurrent requests
 * in any isolate cannot both take the last slot.
 */
export async function takeCreateSlots(
  db: D1Database,
  tenantId: string,
  count: number,
  perSecond: number,
  nowMs: number,
): Promise<boolean> {
  const windowS = Math.floor(nowMs / 1000);
  const row = await db
    .prepare(
      `INSERT INTO tenant_create_windows (tenant_id, window_s, created)
       SELECT ?1, ?2, ?3 WHERE ?3 <= ?4
       ON CONFLICT (tenant_id) DO UPDATE SET
         created = CASE WHEN window_s = excluded.window_s THEN created + excluded.created ELSE excluded.created END,
         window_s = excluded.window_s
       WHERE (CASE WHEN window_s = excluded.window_s THEN created + excluded.created ELSE excluded.created END) <= ?4
       RETURNING created`,
    )
    .bind(tenantId, windowS, count, perSecond)
    .first<{ created: number }>();
  return row !== null;
}
