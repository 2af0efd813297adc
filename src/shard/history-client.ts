// The shard client's run history calls: every run's record lives in its shard (the Worker merges
// the shards' pages: src/service/run-history.ts). Like every shard call, through ./client.ts's stub.
import { shardStub } from "./client";
import type {
  FiredSinceQuery,
  HistoryRecord,
  HistoryStats,
  HistoryStatsQuery,
  JobHistoryQuery,
  TenantHistoryQuery,
} from "./history-protocol";

/** One run's history record, by its job and instant (both in the run id). */
export async function readHistoryRun(
  env: Env,
  shard: number,
  tenantId: string,
  run: { jobId: string; scheduledAtMs: number },
): Promise<HistoryRecord | null> {
  return shardStub(env, shard).historyRun(shard, tenantId, run.jobId, run.scheduledAtMs);
}

/** A job's runs, newest instant first: one shard holds them all. */
export async function readJobHistory(
  env: Env,
  shard: number,
  query: JobHistoryQuery,
): Promise<HistoryRecord[]> {
  return shardStub(env, shard).jobHistory(shard, query);
}

/** One shard's page of a tenant's runs, newest created first. */
export async function readTenantHistory(
  env: Env,
  shard: number,
  query: TenantHistoryQuery,
): Promise<HistoryRecord[]> {
  return shardStub(env, shard).tenantHistory(shard, query);
}

/** Several pages of a tenant's runs from one shard, in one request, in query order. */
export async function readTenantHistoryPages(
  env: Env,
  shard: number,
  queries: TenantHistoryQuery[],
): Promise<HistoryRecord[][]> {
  return shardStub(env, shard).tenantHistoryPages(shard, queries);
}

/** One shard's run counts by state, per-minute counts and recent lateness samples. */
export async function readHistoryStats(
  env: Env,
  shard: number,
  query: HistoryStatsQuery,
): Promise<HistoryStats> {
  return shardStub(env, shard).historyStats(shard, query);
}

/** Moves history records into the shard that owns them; a newer record there is kept. */
export async function importHistoryToShard(
  env: Env,
  shard: number,
  records: HistoryRecord[],
): Promise<number> {
  return shardStub(env, shard).importHistory(shard, records);
}

/** Which of the queries (by index) saw their job fire (a dispatched scheduled run) at or after their instant. */
export async function readFiredSince(env: Env, shard: number, queries: FiredSinceQuery[]): Promise<number[]> {
  return shardStub(env, shard).firedSince(shard, queries);
}
