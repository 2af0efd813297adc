// The jobs table: each job's definition as D1 last sent it (spec, calendars), one row per job,
// written when the job is created or changed, never when it fires. Its timing state lives in
// memory (../state/job-book.ts); the row's own timing columns are read only once, by the first
// start after storage by batch came in (./legacy-state.ts).
import { jsonBytes, STATEMENT_LIMITS, splitIntoBatches } from "../../../src/core/load/queue-limits";

export type JobDefinition = {
  job_id: string;
  tenant_id: string;
  version: number;
  status: string;
  spec_json: string;
  created_at_ms: number;
  calendars_json: string;
  calendars_revision: number;
};

const COLUMNS = [
  "job_id",
  "tenant_id",
  "version",
  "status",
  "spec_json",
  "created_at_ms",
  "calendars_json",
  "calendars_revision",
] as const;

/**
 * New jobs, one statement per ~1 MB (a batch create sends hundreds per shard; one statement for a
 * whole push once failed with SQLITE_TOOBIG, and the outbox would re-send it for ever).
 */
export function insertJobDefinitions(sql: SqlStorage, jobs: readonly JobDefinition[]): void {
  if (jobs.length === 0) return;
  const rows = jobs.map((job) => COLUMNS.map((column) => job[column]));
  const values = COLUMNS.map((_, index) => `json_extract(value, '$[${index}]')`).join(", ");
  for (const group of splitIntoBatches(rows, jsonBytes, STATEMENT_LIMITS)) {
    sql.exec(
      `INSERT OR REPLACE INTO jobs (${COLUMNS.join(", ")}) SELECT ${values} FROM json_each(?)`,
      JSON.stringify(group),
    );
  }
}

/** A job's new version (an edit, a pause or resume, a delete, its calendars edited). */
export function updateJobDefinition(sql: SqlStorage, job: JobDefinition): void {
  sql.exec(
    `UPDATE jobs SET tenant_id = ?, version = ?, status = ?, spec_json = ?, calendars_json = ?,
       calendars_revision = ? WHERE job_id = ?`,
    job.tenant_id,
    job.version,
    job.status,
    job.spec_json,
    job.calendars_json,
    job.calendars_revision,
    job.job_id,
  );
}

/** A status the shard decided itself (paused after failures, completed). */
export function updateJobStatus(sql: SqlStorage, jobId: string, status: string, version: number): void {
  sql.exec("UPDATE jobs SET status = ?, version = ? WHERE job_id = ?", status, version, jobId);
}

export function readJobDefinition(sql: SqlStorage, jobId: string): JobDefinition | null {
  return (
    sql.exec<JobDefinition>(`SELECT ${COLUMNS.join(", ")} FROM jobs WHERE job_id = ?`, jobId).toArray()[0] ??
    null
  );
}

/** Many definitions in one statement (a tick or a consumer batch names hundreds of jobs). */
export function readJobDefinitions(sql: SqlStorage, jobIds: Iterable<string>): Map<string, JobDefinition> {
  const ids = [...new Set(jobIds)];
  const found = new Map<string, JobDefinition>();
  if (ids.length === 0) return found;
  const rows = sql
    .exec<JobDefinition>(
      `SELECT ${COLUMNS.join(", ")} FROM jobs WHERE job_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(ids),
    )
    .toArray();
  for (const row of rows) found.set(row.job_id, row);
  return found;
}
