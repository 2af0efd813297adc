// Run history as the Worker reads it. Every run's record lives in the shard that owns the run
// (durable-objects/shard/records/page-records.ts); the run id names its job and the job names its shard,
// so one run or one job's runs is one shard request. Views across a tenant's jobs (the runs list,
// failures, stats) ask the shards of the tenant's jobs (./tenant-fanout.ts), a bounded number at
// a time, and merge: one request per such shard a page, each an index range read on its shard
// (docs/SCALING.md).
import { parseRunId } from "../core/runs/run-id";
import type { RunState } from "../core/runs/run-state";
import { jobStores } from "../db/databases";
import { findStoredJob } from "../db/job-store";
import { shardOfJob } from "../shard/client";
import {
  readHistoryRun,
  readHistoryStats,
  readJobHistory,
  readTenantHistory,
  readTenantHistoryPages,
} from "../shard/history-client";
import type {
  HistoryCursor,
  HistoryRecord,
  HistoryStats,
  HistoryStatsQuery,
  LatenessSample,
  ShareWait,
} from "../shard/history-protocol";

import { askShards, shardsOfTenant, sharedRead } from "./tenant-fanout";

/** The failure lists the console overview shows side by side: one read per shard serves both. */
const FAILURE_STATES: readonly RunState[] = ["FAILED", "DEAD_LETTERED"];

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

/**
 * Newest instant first, ties by run id descending: the order every shard pages in (a shard's
 * history is kept by instant: durable-objects/shard/README.md).
 */
export function compareNewest(a: HistoryRecord, b: HistoryRecord): number {
  if (a.scheduled_at_ms !== b.scheduled_at_ms) return b.scheduled_at_ms - a.scheduled_at_ms;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * A tenant's runs, newest instant first, strictly after the cursor. Each shard returns its first
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
  const state = page.state;
  if (state !== undefined && FAILURE_STATES.includes(state)) {
    const byState = await failurePages(env, tenantId, page.cursor, page.limit);
    return byState[FAILURE_STATES.indexOf(state)] ?? [];
  }
  const shards = await shardsOfTenant(env, tenantId);
  const pages = await askShards(shards, (shard) => readTenantHistory(env, shard, query));
  return pages.flat().sort(compareNewest).slice(0, page.limit);
}

/** A page of each failure state, merged over the tenant's shards, one request per shard. */
function failurePages(
  env: Env,
  tenantId: string,
  cursor: HistoryCursor | undefined,
  limit: number,
): Promise<HistoryRecord[][]> {
  const key = `failures|${tenantId}|${limit}|${cursor?.ms ?? ""}|${cursor?.id ?? ""}`;
  return sharedRead(env, key, async () => {
    const queries = FAILURE_STATES.map((state) => ({ tenantId, state, cursor, limit }));
    const shards = await shardsOfTenant(env, tenantId);
    const parts = await askShards(shards, (shard) => readTenantHistoryPages(env, shard, queries));
    return FAILURE_STATES.map((_, i) =>
      parts
        .flatMap((part) => part[i] ?? [])
        .sort(compareNewest)
        .slice(0, limit),
    );
  });
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
  // the window's start moves with the clock: reads within SHARED_READ_MS share the first one's
  const key = `stats|${query.tenantId ?? "*"}|${query.latenessLimit}`;
  return sharedRead(env, key, async () => {
    const shards = await shardsOfTenant(env, query.tenantId);
    const perShard = { ...query, latenessLimit: latenessPerShard(query.latenessLimit, shards.length) };
    return sumStats(await askShards(shards, (shard) => readHistoryStats(env, shard, perShard)), query);
  });
}

function sumStats(parts: HistoryStats[], query: HistoryStatsQuery): HistoryStats {
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
    shareWait: sumShareWaits(parts),
  };
}

/** The shards' share waits together: runs summed, the oldest due instant, shards with a wait. */
function sumShareWaits(parts: readonly HistoryStats[]): ShareWait {
  const sum: ShareWait = { waitingRuns: 0, oldestDueMs: null, shards: 0 };
  for (const part of parts) {
    const wait = part.shareWait;
    if (wait === undefined || wait.waitingRuns === 0) continue;
    sum.waitingRuns += wait.waitingRuns;
    sum.shards = (sum.shards ?? 0) + 1;
    if (wait.oldestDueMs !== null && (sum.oldestDueMs === null || wait.oldestDueMs < sum.oldestDueMs)) {
      sum.oldestDueMs = wait.oldestDueMs;
    }
  }
  return sum;
}
