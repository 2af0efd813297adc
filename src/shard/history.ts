// Run history as the Worker reads it. Every run's record lives in the shard that owns the run
// (durable-objects/shard/history-store.ts); the run id names its job and the job names its shard,
// so one run or one job's runs is one shard request. Views across a tenant's jobs (the runs list,
// failures, stats) ask every shard, SHARD_FANOUT_PARALLELISM at a time, and merge: the cost is
// SHARD_COUNT requests per page, each an index range read on its shard (docs/SCALING.md).
import { parseRunId } from "../core/run-id";
import type { RunState } from "../core/run-state";
import { jobStores } from "../db/databases";
import { findStoredJob } from "../db/job-store";
import {
  readHistoryRun,
  readHistoryStats,
  readJobHistory,
  readTenantHistory,
  shardCount,
  shardOfJob,
} from "./client";
import type {
  HistoryCursor,
  HistoryRecord,
  HistoryStats,
  HistoryStatsQuery,
  LatenessSample,
} from "./history-protocol";

/** Shards asked at once by a fan-out (a Worker invocation's subrequests are bounded). */
export const SHARD_FANOUT_PARALLELISM = 32;

/** Runs `read` on every shard, a bounded number at a time; results in shard order. */
export async function everyShard<T>(env: Env, read: (shard: number) => Promise<T>): Promise<T[]> {
  const shards = Array.from({ length: shardCount(env) }, (_, shard) => shard);
  const results: T[] = [];
  for (let i = 0; i < shards.length; i += SHARD_FANOUT_PARALLELISM) {
    results.push(...(await Promise.all(shards.slice(i, i + SHARD_FANOUT_PARALLELISM).map(read))));
  }
  return results;
}

/**
 * The shard a job's runs live on: its stored shard; for a job D1 does not know (an id from
 * another tenant, or a job only a shard was sent), where it would have been placed.
 */
export async function shardOfStoredJob(env: Env, tenantId: string, jobId: string): Promise<number> {
  return (await findStoredJob(jobStores(env), tenantId, jobId))?.shard ?? shardOfJob(env, jobId);
}

/** One run of the tenant, or null (no such run, an id no run can have, another tenant's run). */
export async function findRunRecord(
  env: Env,
  tenantId: string,
  runId: string,
): Promise<HistoryRecord | null> {
  const key = parseRunId(runId);
  if (key === null) return null;
  const shard = await shardOfStoredJob(env, tenantId, key.jobId);
  return readHistoryRun(env, shard, tenantId, key);
}

/** A job's runs, newest instant first, from its shard. */
export async function listJobRunRecords(
  env: Env,
  job: { id: string; shard: number },
  tenantId: string,
  page: { cursor?: HistoryCursor; limit: number },
): Promise<HistoryRecord[]> {
  return readJobHistory(env, job.shard, { tenantId, jobId: job.id, ...page });
}

/** Newest created first, ties by run id descending: the order every shard pages in. */
export function compareNewestCreated(a: HistoryRecord, b: HistoryRecord): number {
  if (a.created_at_ms !== b.created_at_ms) return b.created_at_ms - a.created_at_ms;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * A tenant's runs, newest created first, strictly after the cursor. Each shard returns its first
 * `limit` in the same order, so the first `limit` of their merge are exactly the tenant's: no run
 * skipped or repeated between pages. Filtered to one job, only that job's shard is asked.
 */
export async function listTenantRunRecords(
  env: Env,
  tenantId: string,
  page: { state?: RunState; jobId?: string; cursor?: HistoryCursor; limit: number },
): Promise<HistoryRecord[]> {
  const query = { tenantId, ...page };
  if (page.jobId !== undefined) {
    return readTenantHistory(env, await shardOfStoredJob(env, tenantId, page.jobId), query);
  }
  const pages = await everyShard(env, (shard) => readTenantHistory(env, shard, query));
  return pages.flat().sort(compareNewestCreated).slice(0, page.limit);
}

/** Lateness samples asked of each shard: the window's share, with room for uneven shards. */
function latenessPerShard(totalLimit: number, shards: number): number {
  return Math.min(totalLimit, Math.max(1_000, Math.ceil((2 * totalLimit) / shards)));
}

/**
 * Every shard's aggregates summed: runs by state, per-minute counts, and the newest
 * `latenessLimit` lateness samples of all shards (each shard sends its newest share).
 */
export async function historyStatsOfAllShards(env: Env, query: HistoryStatsQuery): Promise<HistoryStats> {
  const perShard = { ...query, latenessLimit: latenessPerShard(query.latenessLimit, shardCount(env)) };
  const parts = await everyShard(env, (shard) => readHistoryStats(env, shard, perShard));
  const byState = new Map<string, number>();
  const minutes = new Map<number, { minuteMs: number; triggers: number; failures: number }>();
  const lateness: LatenessSample[] = [];
  for (const part of parts) {
    for (const row of part.byState) byState.set(row.state, (byState.get(row.state) ?? 0) + row.n);
    for (const row of part.minutes) {
      const sum = minutes.get(row.minuteMs) ?? { minuteMs: row.minuteMs, triggers: 0, failures: 0 };
      sum.triggers += row.triggers;
      sum.failures += row.failures;
      minutes.set(row.minuteMs, sum);
    }
    lateness.push(...part.lateness);
  }
  lateness.sort((a, b) => b.createdAtMs - a.createdAtMs);
  return {
    byState: [...byState].map(([state, n]) => ({ state, n })),
    minutes: [...minutes.values()],
    lateness: lateness.slice(0, query.latenessLimit),
  };
}
