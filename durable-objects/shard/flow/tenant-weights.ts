// Tenant weights on a shard: each tenant's weight in the dispatch window's fair share
// (src/core/load/fair-share.ts). The admin's change is pushed to every shard of the tenant; a shard the
// push missed (down, or the tenant's first job landed after it) learns it from D1 with the tenant
// limits within TENANT_LIMITS_CACHE_MS of its next send of that tenant. Kept in the shard's
// storage, so a restarted shard splits its window by the weights at once.
import { DEFAULT_TENANT_WEIGHT, effectiveWeight } from "../../../src/core/load/tenant-limits";

/** Records a tenant's weight here (the default weight removes its row). */
export function setTenantWeight(sql: SqlStorage, tenantId: string, weight: number, nowMs: number): void {
  const effective = effectiveWeight(weight);
  if (effective === DEFAULT_TENANT_WEIGHT) {
    sql.exec("DELETE FROM tenant_weights WHERE tenant_id = ?", tenantId);
    return;
  }
  sql.exec(
    `INSERT INTO tenant_weights (tenant_id, weight, updated_at_ms) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET weight = excluded.weight, updated_at_ms = excluded.updated_at_ms
     WHERE weight <> excluded.weight`,
    tenantId,
    effective,
    nowMs,
  );
}

/** Records the weights read from D1 (tenant id -> weight) that differ from the shard's. */
export function rememberTenantWeights(
  sql: SqlStorage,
  weights: ReadonlyMap<string, number>,
  nowMs: number,
): void {
  if (weights.size === 0) return;
  const weightOf = tenantWeightReader(sql);
  for (const [tenantId, weight] of weights) {
    if (weightOf(tenantId) !== weight) setTenantWeight(sql, tenantId, weight, nowMs);
  }
}

/**
 * The weights as one pass sees them: read once (a row per tenant with a weight set, a handful),
 * then looked up per tenant; a tenant without a row has the default.
 */
export function tenantWeightReader(sql: SqlStorage): (tenantId: string) => number {
  let weights: Map<string, number> | null = null;
  return (tenantId) => {
    weights ??= new Map(
      sql
        .exec<{ tenant_id: string; weight: number }>("SELECT tenant_id, weight FROM tenant_weights")
        .toArray()
        .map((row) => [row.tenant_id, row.weight]),
    );
    return weights.get(tenantId) ?? DEFAULT_TENANT_WEIGHT;
  };
}
