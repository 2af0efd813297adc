// QStash schedules are jobs (migrations/0014_qstash_schedules.sql): these read them by the id the
// client knows. The expressions match the index's exactly, so SQLite uses it.
import { type JobRow, rowToJob, type StoredJob } from "./jobs";

const SCHEDULE_ID = "json_extract(spec_json, '$.qstash.schedule_id')";
const LIVE = `${SCHEDULE_ID} IS NOT NULL AND status <> 'DELETED'`;

/** The tenant's live job for this schedule id, or null. */
export async function findScheduleJob(
  db: D1Database,
  tenantId: string,
  scheduleId: string,
): Promise<StoredJob | null> {
  const row = await db
    .prepare(`SELECT * FROM jobs WHERE tenant_id = ? AND ${SCHEDULE_ID} = ? AND ${LIVE}`)
    .bind(tenantId, scheduleId)
    .first<JobRow>();
  return row === null ? null : rowToJob(row);
}

/** The tenant's live schedules, newest first (QStash lists them all, unpaged). */
export async function listScheduleJobs(
  db: D1Database,
  tenantId: string,
  limit: number,
): Promise<StoredJob[]> {
  const { results } = await db
    .prepare(`SELECT * FROM jobs WHERE tenant_id = ? AND ${LIVE} ORDER BY id DESC LIMIT ?`)
    .bind(tenantId, limit)
    .all<JobRow>();
  return results.map(rowToJob);
}

/** Whether a failed insert was the schedule index refusing a second live job for one id. */
export function isScheduleIdTaken(error: unknown): boolean {
  return (
    error instanceof Error && /UNIQUE constraint failed: index .jobs_qstash_schedule/i.test(error.message)
  );
}
