import { addClause, addCursor, selectPage, type TimeCursor, where } from "./page";

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
 * Bytes of dead-letter JSON bound to one INSERT. D1 refuses a string or bound value over 2 MB, and
 * one statement for a whole consumer batch of large letters failed with SQLITE_TOOBIG.
 */
const INSERT_CHUNK_BYTES = 512_000;
/** Rows per INSERT at most, whatever their size. */
const INSERT_CHUNK_ROWS = 50;

/**
 * Records dead letters, one statement per chunk (INSERT_CHUNK_BYTES, INSERT_CHUNK_ROWS). Ids are
 * deterministic per run and attempt, so a redelivered dead-letter message, or a retry after a
 * chunk failed, inserts nothing twice.
 */
export async function insertDeadLetters(
  db: D1Database,
  deadLetters: readonly NewDeadLetter[],
  nowMs: number,
): Promise<void> {
  for (const rowsJson of insertChunks(deadLetters)) {
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
      .bind(rowsJson, nowMs)
      .run();
  }
}

/** The rows as JSON arrays, each within the chunk limits (a single larger row goes alone). */
function insertChunks(rows: readonly NewDeadLetter[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    const json = JSON.stringify(row);
    const rowBytes = new TextEncoder().encode(json).byteLength;
    if (
      current.length > 0 &&
      (current.length >= INSERT_CHUNK_ROWS || bytes + rowBytes > INSERT_CHUNK_BYTES)
    ) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      bytes = 0;
    }
    current.push(json);
    bytes += rowBytes + 1;
  }
  if (current.length > 0) chunks.push(`[${current.join(",")}]`);
  return chunks;
}
