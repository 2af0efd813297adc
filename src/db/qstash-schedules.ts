// QStash schedules are jobs whose spec carries `qstash.schedule_id` (migrations-jobs/0002): these
// place and read them by the id the client knows. A schedule's job lives in the job database its
// (tenant, schedule id) hashes to, so every create of one schedule id meets in one database,
// where the unique index lets one live job in. The expressions match the index's exactly, so
// SQLite uses it.
import { allJobSources, type JobStores, jobDatabaseIndex } from "./databases";
import { type JobRow, rowToJob, type StoredJob } from "./jobs";

const SCHEDULE_ID = "json_extract(spec_json, '$.qstash.schedule_id')";
const LIVE = `${SCHEDULE_ID} IS NOT NULL AND status <> 'DELETED'`;

/**
 * The job database index of a tenant's schedule id. Never change it: schedule jobs are where it
 * said when they were created. Salted apart from job ids and idempotency keys.
 */
export function scheduleDatabaseIndex(stores: JobStores, tenantId: string, scheduleId: string): number {
  return jobDatabaseIndex(`qstash-schedule\n${tenantId}\n${scheduleId}`, stores.homes.length);
}

async function findIn(db: D1Database, tenantId: string, scheduleId: string): Promise<StoredJob | null> {
  const row = await db
    .prepare(`SELECT * FROM jobs WHERE tenant_id = ? AND ${SCHEDULE_ID} = ? AND ${LIVE}`)
    .bind(tenantId, scheduleId)
    .first<JobRow>();
  return row === null ? null : rowToJob(row);
}

/**
 * The tenant's live job for this schedule id, or null: from the database the id hashes to, then
 * the legacy table while it is read.
 */
export async function findScheduleJob(
  stores: JobStores,
  tenantId: string,
  scheduleId: string,
): Promise<StoredJob | null> {
  const home = stores.homes[scheduleDatabaseIndex(stores, tenantId, scheduleId)] as D1Database;
  const job = await findIn(home, tenantId, scheduleId);
  if (job !== null || stores.legacy === null) return job;
  return findIn(stores.legacy, tenantId, scheduleId);
}

async function listIn(db: D1Database, tenantId: string, limit: number): Promise<StoredJob[]> {
  const { results } = await db
    .prepare(`SELECT * FROM jobs WHERE tenant_id = ? AND ${LIVE} ORDER BY id DESC LIMIT ?`)
    .bind(tenantId, limit)
    .all<JobRow>();
  return results.map(rowToJob);
}

/**
 * The tenant's live schedules across every job source, newest first (QStash lists them all,
 * unpaged): each source's first `limit`, merged by id (a home row wins over its legacy copy), cut.
 */
export async function listScheduleJobs(
  stores: JobStores,
  tenantId: string,
  limit: number,
): Promise<StoredJob[]> {
  const lists = await Promise.all(allJobSources(stores).map((db) => listIn(db, tenantId, limit)));
  const seen = new Set<string>();
  // Ids are ASCII (prefix + Crockford base32): JavaScript's order is SQLite's binary order.
  return lists
    .flat()
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .filter((job) => !seen.has(job.id) && seen.add(job.id))
    .slice(0, limit);
}

/** Whether a failed insert was the schedule index refusing a second live job for one id. */
export function isScheduleIdTaken(error: unknown): boolean {
  return (
    error instanceof Error && /UNIQUE constraint failed: index .jobs_qstash_schedule/i.test(error.message)
  );
}
