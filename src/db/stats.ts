import { RUN_STATES, type RunState, sqlInList } from "../core/run-state";

/** A run counts as a failure in the per-minute chart in these states (or with a FAILED event). */
const FAILURE_STATES: readonly RunState[] = ["FAILED", "DEAD_LETTERED"];
export const STATS_WINDOW_MINUTES = 60;
/** Lateness percentiles come from at most this many of the most recent runs. */
export const LATENESS_SAMPLE_LIMIT = 10_000;
const MINUTE_MS = 60_000;

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

function zeroFilled(keys: readonly string[], rows: { key: string; n: number }[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(keys.map((key) => [key, 0]));
  for (const row of rows) counts[row.key] = row.n;
  return counts;
}

export async function runsByState(db: D1Database, tenantId: string | null) {
  return zeroFilled(RUN_STATES, await countBy(db, "runs", "state", tenantId));
}

/**
 * Runs created per minute (triggers) and how many of them failed at least once (state FAILED or
 * DEAD_LETTERED, or a FAILED event in their history: approximate), for the last 60 minutes.
 */
export async function perMinute(db: D1Database, tenantId: string | null, nowMs: number) {
  const firstMinuteMs = (Math.floor(nowMs / MINUTE_MS) - (STATS_WINDOW_MINUTES - 1)) * MINUTE_MS;
  const { clause, values } = scope(tenantId);
  const { results } = await db
    .prepare(
      `SELECT created_at_ms / ${MINUTE_MS} AS minute, COUNT(*) AS triggers,
         SUM(CASE WHEN state IN ${sqlInList(FAILURE_STATES)} OR events_json LIKE '%"FAILED"%' THEN 1 ELSE 0 END) AS failures
       FROM runs WHERE ${clause} AND created_at_ms >= ? GROUP BY minute`,
    )
    .bind(...values, firstMinuteMs)
    .all<{ minute: number; triggers: number; failures: number }>();
  const byMinute = new Map(results.map((row) => [row.minute * MINUTE_MS, row]));
  return Array.from({ length: STATS_WINDOW_MINUTES }, (_, i) => {
    const minuteMs = firstMinuteMs + i * MINUTE_MS;
    const row = byMinute.get(minuteMs);
    return {
      minute: new Date(minuteMs).toISOString(),
      triggers: row?.triggers ?? 0,
      failures: row?.failures ?? 0,
    };
  });
}

/** Lateness of the most recent runs created in the last hour (bounded sample). */
export async function recentLatenessMs(
  db: D1Database,
  tenantId: string | null,
  nowMs: number,
): Promise<number[]> {
  const { clause, values } = scope(tenantId);
  const { results } = await db
    .prepare(
      `SELECT lateness_ms FROM runs WHERE ${clause} AND created_at_ms >= ? AND lateness_ms IS NOT NULL
       ORDER BY created_at_ms DESC LIMIT ?`,
    )
    .bind(...values, nowMs - STATS_WINDOW_MINUTES * MINUTE_MS, LATENESS_SAMPLE_LIMIT)
    .all<{ lateness_ms: number }>();
  return results.map((row) => row.lateness_ms);
}
