// Which D1 database holds what. The control database `DB` holds tenants, API keys, console
// sessions, calendars, alerts and dead letters (run history lives in the shards); job
// definitions live in JOB_DATABASES databases (bindings DB_JOBS_0 ..), a job in the one its id
// hashes to. The id alone names the database, so
// looking a job up never scans. The hash is salted so that it is independent of the shard hash:
// the jobs of one database (a batch create lands in one) still spread over every shard. While an
// older deployment's jobs are being moved out of `DB`'s own `jobs` table (LEGACY_JOBS = "read"),
// that table is one more place to look.
import { hash32 } from "../core/common/stable-hash";

/** The databases job definitions are read from and written to. */
export interface JobStores {
  /** DB_JOBS_0 .. DB_JOBS_{n-1}: job `id` lives in `homes[jobDatabaseIndex(id, homes.length)]`. */
  homes: readonly D1Database[];
  /** The control database's old `jobs` table while LEGACY_JOBS is "read", else null. */
  legacy: D1Database | null;
}

/**
 * The job database index of a job id: `hash32("jobs-db:" + id)` modulo the database count. Never
 * change it: rows are where it said when they were written. The salt keeps it independent of
 * `shardForJob` (`hash32(id)`), which a shared hash would make `shard % count` exactly.
 */
export function jobDatabaseIndex(jobId: string, databaseCount: number): number {
  if (!Number.isInteger(databaseCount) || databaseCount < 1) {
    throw new RangeError(`databaseCount must be a positive integer, got ${databaseCount}`);
  }
  return hash32(`jobs-db:${jobId}`) % databaseCount;
}

function isD1Database(value: unknown): value is D1Database {
  return typeof value === "object" && value !== null && typeof (value as D1Database).prepare === "function";
}

const storesByEnv = new WeakMap<Env, JobStores>();

/**
 * The deployment's job databases. Throws (a configuration bug, not a request error) when
 * JOB_DATABASES names more databases than are bound: a job must never land in the wrong one.
 */
export function jobStores(env: Env): JobStores {
  const cached = storesByEnv.get(env);
  if (cached !== undefined) return cached;
  const count = Number(env.JOB_DATABASES) || 1;
  // The bindings are numbered, so they are read by name; Env types each one, not the family.
  const bindings = env as unknown as Record<string, unknown>;
  const homes = Array.from({ length: count }, (_unused, index) => {
    const db = bindings[`DB_JOBS_${index}`];
    if (!isD1Database(db)) throw new Error(`JOB_DATABASES is ${count} but DB_JOBS_${index} is not bound`);
    return db;
  });
  const stores: JobStores = { homes, legacy: env.LEGACY_JOBS === "read" ? env.DB : null };
  storesByEnv.set(env, stores);
  return stores;
}

/** The database that holds (or will hold) this job. */
export function homeOf(stores: JobStores, jobId: string): D1Database {
  return stores.homes[jobDatabaseIndex(jobId, stores.homes.length)] as D1Database;
}

/** Every database a list or sweep reads: the homes, then the legacy table if it is being read. */
export function allJobSources(stores: JobStores): D1Database[] {
  return stores.legacy === null ? [...stores.homes] : [...stores.homes, stores.legacy];
}

/**
 * Items grouped by the database of their job id (homes only), in database order: one statement
 * per database for bulk writes.
 */
export function groupByHome<T>(
  stores: JobStores,
  items: readonly T[],
  jobIdOf: (item: T) => string,
): { db: D1Database; items: T[] }[] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const index = jobDatabaseIndex(jobIdOf(item), stores.homes.length);
    const group = groups.get(index);
    if (group) group.push(item);
    else groups.set(index, [item]);
  }
  return [...groups]
    .sort(([a], [b]) => a - b)
    .map(([index, group]) => ({ db: stores.homes[index] as D1Database, items: group }));
}
