// Which shards a tenant-wide view asks, and reads several views share. A tenant's runs live on the
// shards of its jobs, which the job databases' tenant index names (src/db/tenant-shards.ts), so a
// tenant on 10 shards costs 10 shard requests a page whatever SHARD_COUNT is. Only a view of every
// tenant (the admin's) or a deployment still reading the old jobs table asks every shard.
import { jobStores } from "../db/databases";
import { tenantShards } from "../db/tenant-shards";
import { setTenantWeightOnShards, shardCount } from "../shard/client";
import { withinDeadline } from "./call-deadline";

/** Shards asked at once by a fan-out (a Worker invocation's subrequests are bounded). */
export const SHARD_FANOUT_PARALLELISM = 32;

/** The shards that may hold runs of `tenantId` (null: every tenant), ascending. */
export async function shardsOfTenant(env: Env, tenantId: string | null): Promise<number[]> {
  const indexed = tenantId === null ? null : await tenantShards(jobStores(env), tenantId);
  const count = shardCount(env);
  if (indexed === null) return Array.from({ length: count }, (_, shard) => shard);
  return indexed.filter((shard) => shard < count);
}

/**
 * Runs `read` on each of `shards`, a bounded number at a time; results in the shards' order. A
 * shard that does not answer within READ_DEADLINE_MS fails the whole read (the caller answers 503).
 */
export async function askShards<T>(
  shards: readonly number[],
  read: (shard: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  const ask = (shard: number) => withinDeadline(read(shard), `shard ${shard}`);
  for (let i = 0; i < shards.length; i += SHARD_FANOUT_PARALLELISM) {
    results.push(...(await Promise.all(shards.slice(i, i + SHARD_FANOUT_PARALLELISM).map(ask))));
  }
  return results;
}

/** How long a shared read's answer serves other callers after it settles. */
export const SHARED_READ_MS = 1_000;

const sharedByEnv = new WeakMap<Env, Map<string, { answer: Promise<unknown>; untilMs: number }>>();

/**
 * One fan-out for identical reads close together: the console overview asks for the stats twice
 * (the counts and the lateness) and for two failure lists in the same invocation; each would
 * otherwise ask every shard of the tenant again, and four fan-outs over thousands of shards pass
 * an invocation's 10,000 subrequests. An answer is at most SHARED_READ_MS older than its request;
 * keys name the tenant, so nothing is shared across tenants. A failed read is not kept.
 */
export function sharedRead<T>(env: Env, key: string, read: () => Promise<T>): Promise<T> {
  let shared = sharedByEnv.get(env);
  if (shared === undefined) {
    shared = new Map();
    sharedByEnv.set(env, shared);
  }
  const nowMs = Date.now();
  for (const [staleKey, entry] of shared) if (entry.untilMs < nowMs) shared.delete(staleKey);
  const existing = shared.get(key);
  if (existing !== undefined) return existing.answer as Promise<T>;
  const entry = { answer: read() as Promise<unknown>, untilMs: Number.POSITIVE_INFINITY };
  shared.set(key, entry);
  entry.answer.then(
    () => {
      entry.untilMs = Date.now() + SHARED_READ_MS;
    },
    () => shared.delete(key),
  );
  return entry.answer as Promise<T>;
}

/**
 * A tenant's new fair-share weight, told to the shards of its jobs: they split their windows by it
 * at once; one the push misses reads it from D1 with the limits within seconds.
 */
export async function tellShardsTenantWeight(env: Env, tenantId: string, weight: number): Promise<void> {
  await setTenantWeightOnShards(env, tenantId, weight, await shardsOfTenant(env, tenantId));
}
