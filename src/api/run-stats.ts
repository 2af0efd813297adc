// The run side of GET /v1/stats and the console overview, from every shard's history aggregates
// (run counts by state and per minute, kept by the shard as it records history; the newest
// lateness samples). One request per shard, whatever the history's size.
import { RUN_STATES } from "../core/run-state";
import { LATENESS_SAMPLE_LIMIT, STATS_WINDOW_MINUTES, zeroFilled } from "../db/stats";
import { historyStatsOfAllShards } from "../shard/history";

const MINUTE_MS = 60_000;

export interface RunStats {
  runsByState: Record<string, number>;
  /** The last STATS_WINDOW_MINUTES minutes, oldest first, each with its triggers and failures. */
  perMinute: { minute: string; triggers: number; failures: number }[];
  /** Lateness of the window's most recent runs: the scheduler's own, and deliberate late fires. */
  ownLatenessMs: number[];
  deliberateLatenessMs: number[];
}

/** `tenantId` null: every tenant (the admin's view). */
export async function runStats(env: Env, tenantId: string | null, nowMs: number): Promise<RunStats> {
  const firstMinuteMs = (Math.floor(nowMs / MINUTE_MS) - (STATS_WINDOW_MINUTES - 1)) * MINUTE_MS;
  const stats = await historyStatsOfAllShards(env, {
    tenantId,
    sinceMs: nowMs - STATS_WINDOW_MINUTES * MINUTE_MS,
    latenessLimit: LATENESS_SAMPLE_LIMIT,
  });
  const byMinute = new Map(stats.minutes.map((row) => [row.minuteMs, row]));
  const perMinute = Array.from({ length: STATS_WINDOW_MINUTES }, (_, i) => {
    const minuteMs = firstMinuteMs + i * MINUTE_MS;
    const row = byMinute.get(minuteMs);
    return {
      minute: new Date(minuteMs).toISOString(),
      triggers: row?.triggers ?? 0,
      failures: row?.failures ?? 0,
    };
  });
  const ownLatenessMs: number[] = [];
  const deliberateLatenessMs: number[] = [];
  for (const sample of stats.lateness) {
    (sample.deliberate ? deliberateLatenessMs : ownLatenessMs).push(sample.latenessMs);
  }
  return {
    runsByState: zeroFilled(
      RUN_STATES,
      stats.byState.map((row) => ({ key: row.state, n: row.n })),
    ),
    perMinute,
    ownLatenessMs,
    deliberateLatenessMs,
  };
}
