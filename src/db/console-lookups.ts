// Reads the console needs beside the API's resources: job names for the ids on a page. (Lateness
// by cause for the overview chart comes from the shards' history: src/api/run-stats.ts.)
import { chunk } from "./time";

/** Names of the given jobs of one tenant (ids it does not own are left out). */
export async function jobNamesByIds(
  db: D1Database,
  tenantId: string,
  jobIds: readonly string[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const unique = [...new Set(jobIds)];
  // D1 binds at most 100 parameters per statement; one is the tenant.
  for (const ids of chunk(unique, 90)) {
    const { results } = await db
      .prepare(`SELECT id, name FROM jobs WHERE tenant_id = ? AND id IN (${ids.map(() => "?").join(", ")})`)
      .bind(tenantId, ...ids)
      .all<{ id: string; name: string }>();
    for (const row of results) names.set(row.id, row.name);
  }
  return names;
}
