// A job's next version written to its row: an edit if nobody wrote one meanwhile, a deletion.
import { impliedEndMs } from "../core/jobs/job-end";
import { type JobRow, rowToJob, type StoredJob, specJsonOf } from "./jobs";

/**
 * The statement that writes a new version of a job if nobody wrote one since `expectedVersion`
 * (optimistic concurrency): one write, or many in one batch (src/db/job-bulk.ts).
 */
export function jobVersionUpdate(
  db: D1Database,
  job: StoredJob,
  expectedVersion: number,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE jobs SET name = ?, spec_json = ?, status = ?, version = ?, updated_at_ms = ?, ends_at_ms = ?
       WHERE id = ? AND tenant_id = ? AND version = ?`,
    )
    .bind(
      job.spec.name,
      specJsonOf(job.spec),
      job.status,
      job.version,
      job.updatedAtMs,
      impliedEndMs(job.spec),
      job.id,
      job.tenantId,
      expectedVersion,
    );
}

/** Writes a new version of a job (jobVersionUpdate). Returns false when the row moved on. */
export async function updateJobVersion(
  db: D1Database,
  job: StoredJob,
  expectedVersion: number,
): Promise<boolean> {
  const result = await jobVersionUpdate(db, job, expectedVersion).run();
  return result.meta.changes > 0;
}

/**
 * Marks a tenant's job DELETED as its next version in one statement, the row as written; null
 * when there is no such row or it is already deleted. A DELETE's read and write were two round
 * trips, each queued behind a flood's work on a busy instance.
 */
export async function markJobDeleted(
  db: D1Database,
  tenantId: string,
  id: string,
  nowMs: number,
): Promise<StoredJob | null> {
  const row = await db
    .prepare(
      `UPDATE jobs SET status = 'DELETED', version = version + 1, updated_at_ms = ?
       WHERE id = ? AND tenant_id = ? AND status <> 'DELETED' RETURNING *`,
    )
    .bind(nowMs, id, tenantId)
    .first<JobRow>();
  return row === null ? null : rowToJob(row);
}
