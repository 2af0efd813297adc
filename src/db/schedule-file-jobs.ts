// The reads a schedule file's plan needs (src/service/schedule-files/), across the job databases:
// the live jobs of the names a request holds, and the jobs the file manages in a name range (the
// ones `prune` may delete). `managed_by` lives in the spec; migrations-jobs/0016 indexes it.
import { allJobSources, type JobStores } from "./databases";
import { type JobRow, rowToJob, type StoredJob } from "./jobs";

/** One row per id, a home database's over the legacy table's copy (homes are read first). */
function unique(lists: readonly StoredJob[][]): StoredJob[] {
  const seen = new Set<string>();
  return lists.flat().filter((job) => !seen.has(job.id) && seen.add(job.id));
}

/** The tenant's jobs (any status but DELETED) named one of `names`. */
export async function liveStoredJobsNamed(
  stores: JobStores,
  tenantId: string,
  names: readonly string[],
): Promise<StoredJob[]> {
  if (names.length === 0) return [];
  const lists = await Promise.all(
    allJobSources(stores).map(async (db) => {
      const { results } = await db
        .prepare(
          `SELECT * FROM jobs WHERE tenant_id = ? AND name IN (SELECT value FROM json_each(?))
           AND status <> 'DELETED'`,
        )
        .bind(tenantId, JSON.stringify([...new Set(names)]))
        .all<JobRow>();
      return results.map(rowToJob);
    }),
  );
  return unique(lists);
}

/**
 * The tenant's live jobs managed by `managedBy` whose name is in `[from, to)` (null: open), in
 * SQLite's BINARY order of the names' UTF-8, which is code point order (src/core/schedule-file/names.ts).
 */
export async function managedStoredJobsInRange(
  stores: JobStores,
  tenantId: string,
  managedBy: string,
  range: { from: string | null; to: string | null },
): Promise<StoredJob[]> {
  const lists = await Promise.all(
    allJobSources(stores).map(async (db) => {
      const { results } = await db
        .prepare(
          `SELECT * FROM jobs WHERE tenant_id = ?1 AND json_extract(spec_json, '$.managed_by') = ?2
           AND status <> 'DELETED' AND (?3 IS NULL OR name >= ?3) AND (?4 IS NULL OR name < ?4)`,
        )
        .bind(tenantId, managedBy, range.from, range.to)
        .all<JobRow>();
      return results.map(rowToJob);
    }),
  );
  return unique(lists);
}

/**
 * Live jobs (at most `limit`) that name the calendar and are not managed by `managedBy`: what
 * keeps that file's `prune` from deleting the calendar.
 */
export async function otherStoredJobsNamingCalendar(
  stores: JobStores,
  tenantId: string,
  calendar: string,
  managedBy: string,
  limit = 20,
): Promise<{ id: string; name: string }[]> {
  const lists = await Promise.all(
    allJobSources(stores).map(async (db) => {
      const { results } = await db
        .prepare(
          `SELECT id, name FROM jobs WHERE tenant_id = ?1 AND status <> 'DELETED'
           AND EXISTS (SELECT 1 FROM json_each(jobs.spec_json, '$.calendars') WHERE value = ?2)
           AND json_extract(spec_json, '$.managed_by') IS NOT ?3 ORDER BY id LIMIT ?4`,
        )
        .bind(tenantId, calendar, managedBy, limit)
        .all<{ id: string; name: string }>();
      return results;
    }),
  );
  const byId = new Map(lists.flat().map((job) => [job.id, job]));
  return [...byId.values()].slice(0, limit);
}
