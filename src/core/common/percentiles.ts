/** p50/p90/p99 by nearest rank, or nulls for an empty sample. */
export interface PercentileSummary {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  count: number;
}

/**
 * Nearest-rank percentiles of a sample (order does not matter; the input is not modified).
 * `summarizePercentiles([1, 2, 3, 4])` -> `{p50: 2, p90: 4, p99: 4, count: 4}`.
 */
export function summarizePercentiles(values: readonly number[]): PercentileSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted.length === 0 ? null : (sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? null);
  return { p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), count: sorted.length };
}
