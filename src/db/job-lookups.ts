// Reads of job rows that other stores' features need (console names, stats counts, calendar
// users, an alert's on_failure URL), across the job databases (./databases.ts).
import { JOB_STATUSES, type JobStatus } from "../core/runs/run-state";
import { allJobSources, groupByHome, type JobStores } from "./databases";
import { readStatusSql } from "./job-read-status";
import { type JobRow, rowToJob, type StoredJob } from "./jobs";
import { chunk } from "./time";

/** `[id, value]` pairs from every database that may hold these ids (home, and legacy while read). */
async function byIds<T>(
  stores: JobStores,
  ids: readonly string[],
  read: (db: D1Database, ids: string[]) => Promise<[string, T][]>,
): Promise<Map<string, T>> {
  const unique = [...new Set(ids)];
  const reads = groupByHome(stores, unique, (id) => id).map(({ db, items }) => read(db, items));
  if (stores.legacy !== null && unique.length > 0) reads.push(read(stores.legacy, unique));
  // Legacy results first, so a job's home row (the one written to now) wins.
  return new Map((await Promise.all(reads)).reverse().flat());
}

/** Names of the given jobs of one tenant (ids it does not own are left out). */
export async function jobNamesByIds(
  stores: JobStores,
  tenantId: string,
  jobIds: readonly string[],
): Promise<Map<string, string>> {
  return byIds(stores, jobIds, async (db, ids) => {
    const pairs: [string, string][] = [];
    // D1 binds at most 100 parameters per statement; one is the tenant.
    for (const group of chunk(ids, 90)) {
      const { results } = await db
        .prepare(
          `SELECT id, name FROM jobs WHERE tenant_id = ? AND id IN (${group.map(() => "?").join(", ")})`,
        )
        .bind(tenantId, ...group)
        .all<{ id: string; name: string }>();
      for (const row of results) pairs.push([row.id, row.name]);
    }
    return pairs;
  });
}

/** The on_failure URL of each of these jobs that has one (any tenant: alerts carry their job). */
export async function onFailureUrlsOf(
  stores: JobStores,
  jobIds: readonly string[],
): Promise<Map<string, string>> {
  return byIds(stores, jobIds, async (db, ids) => {
    const { results } = await db
      .prepare(
        `SELECT id, json_extract(spec_json, '$.on_failure') AS on_failure FROM jobs
         WHERE id IN (SELECT value FROM json_each(?)) AND json_extract(spec_json, '$.on_failure') IS NOT NULL`,
      )
      .bind(JSON.stringify(ids))
      .all<{ id: string; on_failure: string }>();
    return results.map((row) => [row.id, row.on_failure] as [string, string]);
  });
}

/** Jobs per status, summed over the databases; `tenantId` null: every tenant. */
export async function jobsByStatus(
  stores: JobStores,
  tenantId: string | null,
): Promise<Record<JobStatus, number>> {
  const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
  const filter = tenantId === null ? "" : "WHERE tenant_id = ?";
  const perDatabase = await Promise.all(
    allJobSources(stores).map(async (db) => {
      const statement = db.prepare(
        `SELECT ${readStatusSql("?1")} AS key, COUNT(*) AS n FROM jobs ${filter.replace("?", "?2")} GROUP BY key`,
      );
      const nowMs = Date.now();
      const { results } = await (tenantId === null
        ? statement.bind(nowMs)
        : statement.bind(nowMs, tenantId)
      ).all<{
        key: JobStatus;
        n: number;
      }>();
      return results;
    }),
  );
  for (const row of perDatabase.flat()) counts[row.key] = (counts[row.key] ?? 0) + row.n;
  return counts;
}

const USES_CALENDAR = `tenant_id = ?1 AND status <> 'DELETED'
  AND EXISTS (SELECT 1 FROM json_each(jobs.spec_json, '$.calendars') WHERE value = ?2)`;

/** Ids and names of the jobs that name the calendar (at most `limit`, by id), across databases. */
export async function jobsUsingCalendar(
  stores: JobStores,
  tenantId: string,
  name: string,
  limit = 100,
): Promise<{ id: string; name: string }[]> {
  const lists = await Promise.all(
    allJobSources(stores).map(
      async (db) =>
        (
          await db
            .prepare(`SELECT id, name FROM jobs WHERE ${USES_CALENDAR} ORDER BY id LIMIT ?3`)
            .bind(tenantId, name, limit)
            .all<{ id: string; name: string }>()
        ).results,
    ),
  );
  const byId = new Map(lists.flat().map((job) => [job.id, job]));
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
}

/**
 * Marks every job that names the calendar unsynced (in each database), so the outbox re-sends
 * them with the new revision even if the caller's own push fails. Returns their rows.
 */
export async function markCalendarUsersUnsynced(
  stores: JobStores,
  tenantId: string,
  name: string,
): Promise<StoredJob[]> {
  const lists = await Promise.all(
    allJobSources(stores).map(
      async (db) =>
        (
          await db
            .prepare(
              `UPDATE jobs SET synced_version = MIN(synced_version, version - 1) WHERE ${USES_CALENDAR} RETURNING *`,
            )
            .bind(tenantId, name)
            .all<JobRow>()
        ).results,
    ),
  );
  return [...new Map(lists.flat().map((row) => [row.id, rowToJob(row)])).values()];
}
