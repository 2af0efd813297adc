// Reads of the run history table of shard schema v11-v23 (./legacy-records.ts), merged into every
// history read (./reads.ts) while its records are kept.
import type { FiredSinceQuery, HistoryCursor } from "../../../src/shard/history-protocol";
import type { StoredRecord } from "../records/page-records";

export function legacyRecord(
  sql: SqlStorage,
  tenantId: string,
  jobId: string,
  scheduledAtMs: number,
): StoredRecord | null {
  return (
    sql
      .exec<StoredRecord>(
        "SELECT * FROM run_history WHERE job_id = ? AND scheduled_at_ms = ? AND tenant_id = ?",
        jobId,
        scheduledAtMs,
        tenantId,
      )
      .toArray()[0] ?? null
  );
}

/** A job's records before `beforeMs`, newest instant first. */
export function legacyJobRecords(
  sql: SqlStorage,
  tenantId: string,
  jobId: string,
  beforeMs: number,
  limit: number,
): StoredRecord[] {
  return sql
    .exec<StoredRecord>(
      `SELECT * FROM run_history WHERE job_id = ? AND tenant_id = ? AND scheduled_at_ms < ?
       ORDER BY scheduled_at_ms DESC LIMIT ?`,
      jobId,
      tenantId,
      beforeMs,
      limit,
    )
    .toArray();
}

/**
 * A tenant's records before the cursor, newest first by instant: read through the tenant's
 * (creation-ordered) index, with room for runs created later than their instant.
 */
export function legacyTenantRecords(
  sql: SqlStorage,
  tenantId: string,
  state: string | undefined,
  cursor: HistoryCursor | undefined,
  limit: number,
): StoredRecord[] {
  const filters = ["tenant_id = ?"];
  const values: (string | number)[] = [tenantId];
  if (state !== undefined) {
    filters.push("state = ?");
    values.push(state);
  }
  if (cursor !== undefined) {
    filters.push("scheduled_at_ms <= ?");
    values.push(cursor.ms);
  }
  return sql
    .exec<StoredRecord>(
      `SELECT * FROM run_history WHERE ${filters.join(" AND ")} ORDER BY created_at_ms DESC LIMIT ?`,
      ...values,
      limit * 2,
    )
    .toArray();
}

/** Whether the job has a claimed scheduled run since `sinceMs` in the old table. */
export function legacyFiredSince(sql: SqlStorage, query: FiredSinceQuery): boolean {
  return (
    sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM run_history WHERE job_id = ? AND scheduled_at_ms >= ?
           AND (? IS NULL OR scheduled_at_ms = ?) AND kind IN ('schedule', 'catch_up') AND fence IS NOT NULL
           AND state NOT IN ('SCHEDULED', 'ACQUIRED', 'DISPATCHED')`,
        query.jobId,
        query.sinceMs,
        query.namedRunAtMs ?? null,
        query.namedRunAtMs ?? null,
      )
      .one().n > 0
  );
}
