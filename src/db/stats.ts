// What GET /v1/stats shares with its parts. Job counts come from the job databases
// (./job-lookups.ts, jobsByStatus); the run side from the shards' history aggregates
// (src/service/run-stats.ts).

export const STATS_WINDOW_MINUTES = 60;
/** Lateness percentiles come from at most this many of the most recent runs. */
export const LATENESS_SAMPLE_LIMIT = 10_000;

export function zeroFilled(
  keys: readonly string[],
  rows: { key: string; n: number }[],
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(keys.map((key) => [key, 0]));
  for (const row of rows) counts[row.key] = row.n;
  return counts;
}
