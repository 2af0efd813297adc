// The job store across its databases (./databases.ts): every caller outside src/db reaches job
// rows through these functions, which route a job by its id and scatter-gather lists. The SQL
// itself stays in ./jobs.ts, ./job-versions.ts and ./job-outbox.ts, one database at a time.
import type { JobStatus } from "../core/runs/run-state";
import { allJobSources, groupByHome, homeOf, type JobStores } from "./databases";
import { moveLegacyJobs } from "./job-layout";
import { applyShardJobStatuses, listUnsyncedJobs, markJobsSynced } from "./job-outbox";
import { markJobDeleted, updateJobVersion } from "./job-versions";
import {
  findJob,
  findJobsByIdempotencyKeys,
  insertJobs,
  type JobListFilter,
  listJobs,
  type StoredJob,
} from "./jobs";

/**
 * A tenant's job by id, from its database. While the legacy table is read, a job still there is
 * moved home first (so every later write goes to one place).
 */
export async function findStoredJob(
  stores: JobStores,
  tenantId: string,
  id: string,
): Promise<StoredJob | null> {
  const home = homeOf(stores, id);
  const job = await findJob(home, tenantId, id);
  if (job !== null || stores.legacy === null) return job;
  if ((await findJob(stores.legacy, tenantId, id)) === null) return null;
  await moveLegacyJobs(stores, { ids: [id] });
  return findJob(home, tenantId, id);
}

/**
 * markJobDeleted in the job's home database. Null also when the row may still be in the legacy
 * table: the caller then takes the read-then-write path, which moves it home first.
 */
export async function deleteStoredJobAtOnce(
  stores: JobStores,
  tenantId: string,
  id: string,
  nowMs: number,
): Promise<StoredJob | null> {
  return markJobDeleted(homeOf(stores, id), tenantId, id, nowMs);
}

/** updateJobVersion in the job's database (optimistic: false when the row moved on). */
export async function updateStoredJobVersion(
  stores: JobStores,
  job: StoredJob,
  expectedVersion: number,
): Promise<boolean> {
  return updateJobVersion(homeOf(stores, job.id), job, expectedVersion);
}

/** Inserts new jobs, each in its database (one transaction per database). */
export async function insertStoredJobs(stores: JobStores, jobs: readonly StoredJob[]): Promise<void> {
  await Promise.all(groupByHome(stores, jobs, (job) => job.id).map(({ db, items }) => insertJobs(db, items)));
}

/** Newest first across `lists`, without duplicates (a home row wins over its legacy copy), cut. */
function mergeNewestFirst(lists: readonly StoredJob[][], limit: number): StoredJob[] {
  const seen = new Set<string>();
  const merged: StoredJob[] = [];
  // Ids are ASCII (prefix + Crockford base32): JavaScript's order is SQLite's binary order.
  for (const job of lists.flat().sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))) {
    if (seen.has(job.id)) continue;
    seen.add(job.id);
    merged.push(job);
  }
  return merged.slice(0, limit);
}

/**
 * The tenant's jobs, newest first, across every database: each returns its first `limit` after
 * the cursor and the merge keeps the first `limit` of all. The cursor is the last id shown, so a
 * job created while paging has a larger id and sorts before it: no job is skipped or repeated.
 */
export async function listStoredJobs(
  stores: JobStores,
  tenantId: string,
  filter: JobListFilter,
): Promise<StoredJob[]> {
  const lists = await Promise.all(allJobSources(stores).map((db) => listJobs(db, tenantId, filter)));
  return mergeNewestFirst(lists, filter.limit);
}

/**
 * A tenant's jobs stored under any of these idempotency keys, from every database: a key is
 * unique per database (its index), and `newJobId` places a keyed job by its key, so two creates
 * with one key meet in one database.
 */
export async function findStoredJobsByIdempotencyKeys(
  stores: JobStores,
  tenantId: string,
  keys: readonly string[],
): Promise<StoredJob[]> {
  if (keys.length === 0) return [];
  const lists = await Promise.all(
    allJobSources(stores).map((db) => findJobsByIdempotencyKeys(db, tenantId, keys)),
  );
  return mergeNewestFirst(lists, Number.POSITIVE_INFINITY);
}

export async function findStoredJobByIdempotencyKey(
  stores: JobStores,
  tenantId: string,
  key: string,
): Promise<StoredJob | null> {
  return (await findStoredJobsByIdempotencyKeys(stores, tenantId, [key]))[0] ?? null;
}

/** Every id-keyed bulk write goes to each job's database, and to the legacy table while read. */
async function writeByHome<T extends { id: string }>(
  stores: JobStores,
  items: readonly T[],
  write: (db: D1Database, items: T[]) => Promise<void>,
): Promise<void> {
  if (items.length === 0) return;
  const writes = groupByHome(stores, items, (item) => item.id).map(({ db, items: group }) =>
    write(db, group),
  );
  if (stores.legacy !== null) writes.push(write(stores.legacy, [...items]));
  await Promise.all(writes);
}

/** markJobsSynced in each job's database. */
export async function markStoredJobsSynced(
  stores: JobStores,
  confirmed: readonly { id: string; version: number }[],
): Promise<void> {
  await writeByHome(stores, confirmed, (db, group) => markJobsSynced(db, group));
}

/** applyShardJobStatuses in each job's database. */
export async function applyShardJobStatusesToStores(
  stores: JobStores,
  decided: readonly { id: string; status: JobStatus; version: number }[],
  nowMs: number,
): Promise<void> {
  await writeByHome(stores, decided, (db, group) => applyShardJobStatuses(db, group, nowMs));
}

/** The outbox across databases: the `limit` least recently changed unsynced jobs. */
export async function listUnsyncedStoredJobs(stores: JobStores, limit: number): Promise<StoredJob[]> {
  const lists = await Promise.all(allJobSources(stores).map((db) => listUnsyncedJobs(db, limit)));
  const seen = new Set<string>();
  return lists
    .flat()
    .sort((a, b) => a.updatedAtMs - b.updatedAtMs)
    .filter((job) => !seen.has(job.id) && seen.add(job.id))
    .slice(0, limit);
}
