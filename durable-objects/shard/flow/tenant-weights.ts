// Tenant weights on a shard: each tenant's weight in the dispatch window's fair share
// (src/core/load/fair-share.ts). The admin's change is pushed to every shard of the tenant; a shard the
// push missed (down, or the tenant's first job landed after it) learns it from D1 with the tenant
// limits within TENANT_LIMITS_CACHE_MS of its next send of that tenant. Kept in the shard's
// storage, so a restarted shard splits its window by the weights at once.
import { DEFAULT_TENANT_WEIGHT, effectiveWeight } from "../../../src/core/load/tenant-limits";

/** Records a tenant's weight here (the default weight removes its row). */
export function setTenantWeight(sql: SqlStorage, tenantId: string, weight: number, nowMs: number): void {
  const effective = effectiveWeight(weight);
  weightsBySql.delete(sql);
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
 * The weights each shard's storage holds, read once: a row per tenant with a weight set, a
 * handful. The query ran on every pass (1.3 % of a burst's CPU); the copy is dropped whenever this
 * file writes a weight, the only writer, and a restarted shard has a new storage object.
 */
const weightsBySql = new WeakMap<SqlStorage, Map<string, number>>();

/** Each tenant's weight here; a tenant without a row has the default. */
export function tenantWeightReader(sql: SqlStorage): (tenantId: string) => number {
  return (tenantId) => {
    let weights = weightsBySql.get(sql);
    if (weights === undefined) {
      weights = new Map(
        sql
          .exec<{ tenant_id: string; weight: number }>("SELECT tenant_id, weight FROM tenant_weights")
          .toArray()
          .map((row) => [row.tenant_id, row.weight]),
      );
      weightsBySql.set(sql, weights);
    }
    return weights.get(tenantId) ?? DEFAULT_TENANT_WEIGHT;
  };
}
