// Job counts for GET /v1/stats. The run side of the stats comes from the shards' history
// aggregates (src/api/run-stats.ts).
import { JOB_STATUSES } from "../core/run-state";

export const STATS_WINDOW_MINUTES = 60;
/** Lateness percentiles come from at most this many of the most recent runs. */
export const LATENESS_SAMPLE_LIMIT = 10_000;

/** `tenant_id = ?` for one tenant, or no restriction (admin, all tenants). */
function scope(tenantId: string | null): { clause: string; values: string[] } {
  return tenantId === null
    ? { clause: "1 = 1", values: [] }
    : { clause: "tenant_id = ?", values: [tenantId] };
}

async function countBy(db: D1Database, table: string, column: string, tenantId: string | null) {
  const { clause, values } = scope(tenantId);
  const { results } = await db
    .prepare(`SELECT ${column} AS key, COUNT(*) AS n FROM ${table} WHERE ${clause} GROUP BY ${column}`)
    .bind(...values)
    .all<{ key: string; n: number }>();
  return results;
}

export function zeroFilled(
  keys: readonly string[],
  rows: { key: string; n: number }[],
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(keys.map((key) => [key, 0]));
  for (const row of rows) counts[row.key] = row.n;
  return counts;
}

export async function jobsByStatus(db: D1Database, tenantId: string | null) {
  return zeroFilled(JOB_STATUSES, await countBy(db, "jobs", "status", tenantId));
}
