// The run side of GET /v1/stats and the console overview, from every shard's history aggregates
// (run counts by state and per minute, kept by the shard as it records history; the newest
// lateness samples). One request per shard, whatever the history's size.
import { type PercentileSummary, summarizePercentiles } from "../core/common/percentiles";
import { HOLD_CAUSES, type HoldCause } from "../core/load/run-waits";
import { RUN_STATES } from "../core/runs/run-state";
import { LATENESS_SAMPLE_LIMIT, STATS_WINDOW_MINUTES, zeroFilled } from "../db/stats";
import { historyStatsOfAllShards } from "./run-history";

const MINUTE_MS = 60_000;

export interface RunStats {
  runsByState: Record<string, number>;
  /** The last STATS_WINDOW_MINUTES minutes, oldest first, each with its triggers and failures. */
  perMinute: { minute: string; triggers: number; failures: number }[];
  /** Lateness of the window's most recent runs, whole and split (src/core/load/run-waits.ts). */
  lateness: LatenessSplitSample[];
  /** Runs due now and waiting for the tenant's share of its shards' dispatch windows. */
  shareWait: { waitingRuns: number; oldestDueMs: number | null; shards: number };
}

/** One run's lateness: whole, the scheduler's own part, and what its job asked for (and why). */
export interface LatenessSplitSample {
  latenessMs: number;
  schedulerMs: number;
  policyMs: number;
  policy: HoldCause | null;
}

export interface LatenessSummary {
  whole: PercentileSummary;
  scheduler: PercentileSummary;
  /** Over the runs their job held or fired late on purpose (a policy part above zero). */
  policy: PercentileSummary;
  byPolicy: Partial<Record<HoldCause, PercentileSummary>>;
}

/** The percentiles of the whole lateness, of the scheduler's part, and of each policy's part. */
export function summarizeLateness(samples: readonly LatenessSplitSample[]): LatenessSummary {
  const held = samples.filter((sample) => sample.policy !== null && sample.policyMs > 0);
  const byPolicy: Partial<Record<HoldCause, PercentileSummary>> = {};
  for (const cause of HOLD_CAUSES) {
    const values = held.filter((sample) => sample.policy === cause).map((sample) => sample.policyMs);
    if (values.length > 0) byPolicy[cause] = summarizePercentiles(values);
  }
  return {
    whole: summarizePercentiles(samples.map((sample) => sample.latenessMs)),
    scheduler: summarizePercentiles(samples.map((sample) => sample.schedulerMs)),
    policy: summarizePercentiles(held.map((sample) => sample.policyMs)),
    byPolicy,
  };
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
  return {
    runsByState: zeroFilled(
      RUN_STATES,
      stats.byState.map((row) => ({ key: row.state, n: row.n })),
    ),
    perMinute,
    shareWait: {
      waitingRuns: stats.shareWait?.waitingRuns ?? 0,
      oldestDueMs: stats.shareWait?.oldestDueMs ?? null,
      shards: stats.shareWait?.shards ?? 0,
    },
    lateness: stats.lateness.map(({ latenessMs, schedulerMs, policyMs, policy }) => ({
      latenessMs,
      schedulerMs,
      policyMs,
      policy,
    })),
  };
}
