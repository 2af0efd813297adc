// Run history as pages: the runs one commit settled, of one tenant, one outcome (succeeded or
// not) and one 10 s bucket of instants, in one row (rows are billed by count, not size). The key,
// (tenant, outcome, bucket, seq), makes every read a seek on it: one run (its job and instant
// name its bucket), a job's runs (its job record lists its buckets, ../state/job-book.ts), a
// tenant's runs newest first, and its failed ones alone. `job_ids` lets SQLite skip a page that
// holds nothing of a job without the page being parsed.

/** History buckets are this long, by scheduled instant. */
export const HISTORY_BUCKET_MS = 10_000;

export type PageOutcome = "ok" | "other";

export type PageRow = {
  tenant_id: string;
  outcome: PageOutcome;
  bucket_ms: number;
  seq: number;
  written_at_ms: number;
  /** " job_a job_b ": every job with a record in the page, space-delimited (instr finds one). */
  job_ids: string;
  /** JSON {state: n}: what the page adds to the stats (a prune takes it away). */
  counts: string;
  /** JSON array of records (../records/page-records.ts). */
  body: string;
};

export function bucketOf(scheduledAtMs: number): number {
  return Math.floor(scheduledAtMs / HISTORY_BUCKET_MS) * HISTORY_BUCKET_MS;
}

export function jobIdsField(jobIds: Iterable<string>): string {
  return ` ${[...new Set(jobIds)].join(" ")} `;
}

export function writePage(sql: SqlStorage, page: PageRow): void {
  sql.exec(
    `INSERT INTO history_pages (tenant_id, outcome, bucket_ms, seq, written_at_ms, job_ids, counts, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    page.tenant_id,
    page.outcome,
    page.bucket_ms,
    page.seq,
    page.written_at_ms,
    page.job_ids,
    page.counts,
    page.body,
  );
}

/** Rewrites a page's records (a debounced trigger folded into a run that had settled). */
export function rewritePageBody(sql: SqlStorage, page: PageRow, body: string): void {
  sql.exec(
    "UPDATE history_pages SET body = ? WHERE tenant_id = ? AND outcome = ? AND bucket_ms = ? AND seq = ?",
    body,
    page.tenant_id,
    page.outcome,
    page.bucket_ms,
    page.seq,
  );
}

/** The pages of one bucket of a tenant that hold records of `jobId`, either outcome. */
export function pagesOfJobInBucket(
  sql: SqlStorage,
  tenantId: string,
  bucketMs: number,
  jobId: string,
): PageRow[] {
  return sql
    .exec<PageRow>(
      `SELECT * FROM history_pages WHERE tenant_id = ? AND outcome IN ('ok', 'other') AND bucket_ms = ?
       AND instr(job_ids, ?) > 0`,
      tenantId,
      bucketMs,
      ` ${jobId} `,
    )
    .toArray();
}

export interface PageScan {
  tenantId: string;
  outcome: PageOutcome;
  /** Only pages of buckets at or before this one. */
  atOrBeforeBucketMs: number;
  /** Only pages holding this job. */
  jobId?: string;
  limit: number;
}

/** A tenant's pages of one outcome, newest bucket first (then newest page). */
export function tenantPages(sql: SqlStorage, scan: PageScan): PageRow[] {
  const job = scan.jobId === undefined ? "" : "AND instr(job_ids, ?4) > 0";
  return sql
    .exec<PageRow>(
      `SELECT * FROM history_pages WHERE tenant_id = ?1 AND outcome = ?2 AND bucket_ms <= ?3 ${job}
       ORDER BY bucket_ms DESC, seq DESC LIMIT ?5`,
      scan.tenantId,
      scan.outcome,
      scan.atOrBeforeBucketMs,
      scan.jobId === undefined ? null : ` ${scan.jobId} `,
      scan.limit,
    )
    .toArray();
}

/** The tenants with pages, after `afterTenantId` (a walk of the key, one seek each). */
export function nextPageTenant(sql: SqlStorage, afterTenantId: string): string | null {
  return (
    sql
      .exec<{ tenant_id: string }>(
        "SELECT tenant_id FROM history_pages WHERE tenant_id > ? ORDER BY tenant_id LIMIT 1",
        afterTenantId,
      )
      .toArray()[0]?.tenant_id ?? null
  );
}

/**
 * Deletes up to `limit` of a tenant's pages whose instants and writing are both before `beforeMs`
 * (a backfill of old instants is kept as long as the history it was written into); returns what
 * each deleted page counted.
 */
export function prunePages(sql: SqlStorage, tenantId: string, beforeMs: number, limit: number): string[] {
  return sql
    .exec<{ counts: string }>(
      `DELETE FROM history_pages WHERE (tenant_id, outcome, bucket_ms, seq) IN (
         SELECT tenant_id, outcome, bucket_ms, seq FROM history_pages
         WHERE tenant_id = ?1 AND outcome IN ('ok', 'other') AND bucket_ms < ?2 AND written_at_ms < ?2 LIMIT ?3)
       RETURNING counts`,
      tenantId,
      beforeMs,
      limit,
    )
    .toArray()
    .map((row) => row.counts);
}
