// The shards that hold a tenant's jobs, from each job database's `tenant_shards` index (kept by
// triggers on `jobs`, migrations-jobs/0014). A job's runs live on its stored shard, so these are
// the only shards a tenant-wide view of runs needs to ask.
import type { JobStores } from "./databases";

/**
 * The tenant's shards in ascending order, or null when they cannot be known from the index: the
 * old single-database `jobs` table is still being read (LEGACY_JOBS = "read") and has none.
 */
export async function tenantShards(stores: JobStores, tenantId: string): Promise<number[] | null> {
  if (stores.legacy !== null) return null;
  const parts = await Promise.all(
    stores.homes.map((db) =>
      db
        .prepare("SELECT shard FROM tenant_shards WHERE tenant_id = ?")
        .bind(tenantId)
        .all<{ shard: number }>(),
    ),
  );
  const shards = new Set<number>();
  for (const part of parts) for (const row of part.results) shards.add(row.shard);
  return [...shards].sort((a, b) => a - b);
}
