import { addClause, addCursor, selectPage, type TimeCursor, where } from "./page";
import { iso, isoOrNull, parseJsonColumn } from "./time";

export interface DeadLetterRow {
  id: string;
  tenant_id: string;
  job_id: string;
  run_id: string;
  attempt: number;
  scheduled_at_ms: number;
  reason: string;
  last_error: string | null;
  target_status: number | null;
  payload_json: string;
  created_at_ms: number;
  redriven_at_ms: number | null;
}

export function deadLetterResource(row: DeadLetterRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    run_id: row.run_id,
    attempt: row.attempt,
    scheduled_at: iso(row.scheduled_at_ms),
    reason: row.reason,
    last_error: row.last_error,
    target_status: row.target_status,
    payload: parseJsonColumn<unknown>(row.payload_json, null),
    created_at: iso(row.created_at_ms),
    redriven_at: isoOrNull(row.redriven_at_ms),
  };
}

export async function findDeadLetter(
  db: D1Database,
  tenantId: string,
  id: string,
): Promise<DeadLetterRow | null> {
  return db
    .prepare("SELECT * FROM dead_letters WHERE id = ? AND tenant_id = ?")
    .bind(id, tenantId)
    .first<DeadLetterRow>();
}

export async function listDeadLetters(
  db: D1Database,
  tenantId: string,
  page: { jobId?: string; cursor?: TimeCursor; limit: number },
): Promise<DeadLetterRow[]> {
  const filter = where("tenant_id = ?", tenantId);
  if (page.jobId !== undefined) addClause(filter, "job_id = ?", page.jobId);
  addCursor(filter, "created_at_ms", page.cursor);
  return selectPage<DeadLetterRow>(db, "dead_letters", filter, "created_at_ms", page.limit);
}

/**
 * Marks a dead letter redriven if nobody did yet; false when it already was. Claiming before the
 * shard call means two concurrent redrives cannot both start a new attempt.
 */
export async function claimRedrive(
  db: D1Database,
  tenantId: string,
  id: string,
  nowMs: number,
): Promise<boolean> {
  const result = await db
    .prepare(
      "UPDATE dead_letters SET redriven_at_ms = ? WHERE id = ? AND tenant_id = ? AND redriven_at_ms IS NULL",
    )
    .bind(nowMs, id, tenantId)
    .run();
  return result.meta.changes > 0;
}

/** Undoes a claim whose redrive the shard refused. */
export async function releaseRedrive(db: D1Database, id: string, claimedAtMs: number): Promise<void> {
  await db
    .prepare("UPDATE dead_letters SET redriven_at_ms = NULL WHERE id = ? AND redriven_at_ms = ?")
    .bind(id, claimedAtMs)
    .run();
}

/** A dead letter as the dead-letter consumer records it (created now, not redriven). */
export type NewDeadLetter = Omit<DeadLetterRow, "created_at_ms" | "redriven_at_ms">;

/**
 * Records dead letters in one statement. Ids are deterministic per run and attempt, so a
 * redelivered dead-letter message inserts nothing twice.
 */
export async function insertDeadLetters(
  db: D1Database,
  deadLetters: readonly NewDeadLetter[],
  nowMs: number,
): Promise<void> {
  if (deadLetters.length === 0) return;
  await db
    .prepare(
      `INSERT OR IGNORE INTO dead_letters (id, tenant_id, job_id, run_id, attempt, scheduled_at_ms, reason, last_error,
         target_status, payload_json, created_at_ms)
       SELECT json_extract(value, '$.id'), json_extract(value, '$.tenant_id'), json_extract(value, '$.job_id'),
         json_extract(value, '$.run_id'), json_extract(value, '$.attempt'), json_extract(value, '$.scheduled_at_ms'),
         json_extract(value, '$.reason'), json_extract(value, '$.last_error'), json_extract(value, '$.target_status'),
         json_extract(value, '$.payload_json'), ?2
       FROM json_each(?1)`,
    )
    .bind(JSON.stringify(deadLetters), nowMs)
    .run();
}
