// Reads the console needs beside the API's resources: lateness split by cause for the overview
// chart (job names for the ids on a page are in ./job-lookups.ts, beside the job databases).
/**
 * A run is late on purpose when it was asked to be: a backfill or catch-up run, or a fire the
 * shard recorded as a misfire (after downtime past the grace, or the instants missed while the
 * job was paused, fired on resume). Its first event's reason says so: "misfire <policy>: ...".
 */
export const DELIBERATE_LATENESS_SQL = `(kind IN ('backfill', 'catch_up') OR json_extract(events_json, '$[0].reason') LIKE 'misfire%')`;

/**
 * Lateness of the most recent runs created since `sinceMs` (at most `limit`), split into
 * deliberate late fires and lateness of the scheduler's own. `tenantId` null: every tenant.
 */
export async function recentLatenessByCause(
  db: D1Database,
  tenantId: string | null,
  sinceMs: number,
  limit: number,
): Promise<{ ownMs: number[]; deliberateMs: number[] }> {
  const tenantClause = tenantId === null ? "" : "tenant_id = ? AND";
  const { results } = await db
    .prepare(
      `SELECT lateness_ms, ${DELIBERATE_LATENESS_SQL} AS deliberate FROM runs
       WHERE ${tenantClause} created_at_ms >= ? AND lateness_ms IS NOT NULL
       ORDER BY created_at_ms DESC LIMIT ?`,
    )
    .bind(...(tenantId === null ? [] : [tenantId]), sinceMs, limit)
    .all<{ lateness_ms: number; deliberate: number }>();
  const ownMs: number[] = [];
  const deliberateMs: number[] = [];
  for (const row of results) (row.deliberate ? deliberateMs : ownMs).push(row.lateness_ms);
  return { ownMs, deliberateMs };
}
