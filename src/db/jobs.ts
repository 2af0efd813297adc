import { parseJsonColumn } from "../core/common/stored-values";
import { impliedEndMs } from "../core/jobs/job-end";
import type { JobSpec } from "../core/jobs/job-spec";
import { jsonBytes, STATEMENT_LIMITS, splitIntoBatches } from "../core/load/queue-limits";
import type { JobStatus } from "../core/runs/run-state";

export interface JobRow {
  id: string;
  tenant_id: string;
  name: string;
  spec_json: string;
  status: JobStatus;
  version: number;
  shard: number;
  synced_version: number;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  /** After this, an ACTIVE job reads COMPLETED (src/core/jobs/job-end.ts); null: its shard writes it. */
  ends_at_ms: number | null;
}

/** A job as the API works with it: the row with its spec parsed. */
export interface StoredJob {
  id: string;
  tenantId: string;
  spec: JobSpec;
  status: JobStatus;
  version: number;
  shard: number;
  syncedVersion: number;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  /** When its schedule has no instant left, if its spec says so (the row's ends_at_ms). */
  endsAtMs: number | null;
  /** The status the row holds, when the job reads otherwise (completed by its end passing). */
  storedStatus?: JobStatus;
}

/** What a job reads as: ACTIVE past its end (src/core/jobs/job-end.ts) is COMPLETED. */
export function readStatus(status: JobStatus, endsAtMs: number | null, nowMs: number): JobStatus {
  return status === "ACTIVE" && endsAtMs !== null && endsAtMs <= nowMs ? "COMPLETED" : status;
}

/** readStatus in SQL, `?now` being the bound parameter of the current time. */
export function readStatusSql(nowParameter: string): string {
  return `(CASE WHEN status = 'ACTIVE' AND ends_at_ms <= ${nowParameter} THEN 'COMPLETED' ELSE status END)`;
}

export function rowToJob(row: JobRow): StoredJob {
  const endsAtMs = row.ends_at_ms ?? null;
  const status = readStatus(row.status, endsAtMs, Date.now());
  return {
    id: row.id,
    tenantId: row.tenant_id,
    spec: parseJsonColumn<JobSpec>(row.spec_json, {} as JobSpec),
    status,
    ...(status === row.status ? {} : { storedStatus: row.status }),
    version: row.version,
    shard: row.shard,
    syncedVersion: row.synced_version,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
    endsAtMs,
  };
}

/** The jobs table's columns, in the order rows travel as JSON arrays (same in every database). */
export const JOB_COLUMNS = [
  "id",
  "tenant_id",
  "name",
  "spec_json",
  "status",
  "version",
  "shard",
  "synced_version",
  "idempotency_key",
  "request_hash",
  "created_at_ms",
  "updated_at_ms",
  "ends_at_ms",
] as const;

// A created job's spec is serialized for D1 and again for its shard: once is enough.
const specJsonCache = new WeakMap<JobSpec, string>();

/** JSON of a spec, computed once per spec object (specs are never mutated in place). */
export function specJsonOf(spec: JobSpec): string {
  let json = specJsonCache.get(spec);
  if (json === undefined) {
    json = JSON.stringify(spec);
    specJsonCache.set(spec, json);
  }
  return json;
}

function jobValues(job: StoredJob): (string | number | null)[] {
  return [
    job.id,
    job.tenantId,
    job.spec.name,
    specJsonOf(job.spec),
    job.status,
    job.version,
    job.shard,
    job.syncedVersion,
    job.idempotencyKey,
    job.requestHash,
    job.createdAtMs,
    job.updatedAtMs,
    impliedEndMs(job.spec),
  ];
}

/**
 * Inserts jobs in one D1 batch (one transaction). Rows travel as one JSON parameter per statement
 * (D1 binds ≤ 100 parameters): 4 statements for 1,000 jobs instead of 125 multi-row INSERTs.
 */
export async function insertJobs(db: D1Database, jobs: readonly StoredJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const columns = JOB_COLUMNS.map((_column, index) => `json_extract(value, '$[${index}]')`).join(", ");
  const rows = jobs.map(jobValues);
  const statements = splitIntoBatches(rows, jsonBytes, STATEMENT_LIMITS).map((group) =>
    db
      .prepare(`INSERT INTO jobs (${JOB_COLUMNS.join(", ")}) SELECT ${columns} FROM json_each(?) WHERE true`)
      .bind(JSON.stringify(group)),
  );
  await db.batch(statements);
}

export async function findJob(db: D1Database, tenantId: string, id: string): Promise<StoredJob | null> {
  const row = await db
    .prepare("SELECT * FROM jobs WHERE id = ? AND tenant_id = ?")
    .bind(id, tenantId)
    .first<JobRow>();
  return row === null ? null : rowToJob(row);
}

/** A tenant's jobs stored under any of these idempotency keys (one query). */
export async function findJobsByIdempotencyKeys(
  db: D1Database,
  tenantId: string,
  idempotencyKeys: readonly string[],
): Promise<StoredJob[]> {
  const { results } = await db
    .prepare("SELECT * FROM jobs WHERE tenant_id = ? AND idempotency_key IN (SELECT value FROM json_each(?))")
    .bind(tenantId, JSON.stringify(idempotencyKeys))
    .all<JobRow>();
  return results.map(rowToJob);
}

export async function findJobByIdempotencyKey(
  db: D1Database,
  tenantId: string,
  idempotencyKey: string,
): Promise<StoredJob | null> {
  const row = await db
    .prepare("SELECT * FROM jobs WHERE tenant_id = ? AND idempotency_key = ?")
    .bind(tenantId, idempotencyKey)
    .first<JobRow>();
  return row === null ? null : rowToJob(row);
}

export interface JobListFilter {
  status?: JobStatus;
  namePrefix?: string;
  /** Only ids strictly older (smaller) than this one: the cursor. */
  beforeId?: string;
  limit: number;
}

/** Newest first. DELETED jobs only when asked for by status. The name prefix is a range, not LIKE. */
export async function listJobs(
  db: D1Database,
  tenantId: string,
  filter: JobListFilter,
): Promise<StoredJob[]> {
  const where = ["tenant_id = ?"];
  const values: (string | number)[] = [tenantId];
  if (filter.status !== undefined) {
    where.push(statusFilterSql(filter.status));
    values.push(...statusFilterValues(filter.status, Date.now()));
  } else {
    where.push("status != 'DELETED'");
  }
  if (filter.namePrefix !== undefined && filter.namePrefix !== "") {
    // U+10FFFF sorts after every character SQLite's binary collation can meet in a name.
    where.push("name >= ? AND name < ?");
    values.push(filter.namePrefix, `${filter.namePrefix}\u{10FFFF}`);
  }
  if (filter.beforeId !== undefined) {
    where.push("id < ?");
    values.push(filter.beforeId);
  }
  const { results } = await db
    .prepare(`SELECT * FROM jobs WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`)
    .bind(...values, filter.limit)
    .all<JobRow>();
  return results.map(rowToJob);
}

/**
 * Jobs that read as `status` (readStatus), with the index on (tenant_id, status) still usable: an
 * ACTIVE job past its end reads COMPLETED.
 */
export function statusFilterSql(status: JobStatus): string {
  if (status === "ACTIVE") return "status = 'ACTIVE' AND (ends_at_ms IS NULL OR ends_at_ms > ?)";
  if (status === "COMPLETED") return "(status = 'COMPLETED' OR (status = 'ACTIVE' AND ends_at_ms <= ?))";
  return "status = ?";
}

export function statusFilterValues(status: JobStatus, nowMs: number): (string | number)[] {
  return status === "ACTIVE" || status === "COMPLETED" ? [nowMs] : [status];
}

/**
 * The statement that writes a new version of a job if nobody wrote one since `expectedVersion`
 * (optimistic concurrency): one write, or many in one batch (./job-bulk.ts).
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

/**
 * Records that shards confirmed `version` of these jobs: synced_version becomes the confirmed
 * version, never the row's newer one (an edit written meanwhile stays unsynced for the outbox
 * sweep) and never moves backwards.
 */
export async function markJobsSynced(db: D1Database, confirmed: readonly { id: string; version: number }[]) {
  if (confirmed.length === 0) return;
  await db
    .prepare(
      `UPDATE jobs SET synced_version = confirmed.version
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS version
             FROM json_each(?)) AS confirmed
       WHERE jobs.id = confirmed.id AND jobs.synced_version < confirmed.version
         AND jobs.version >= confirmed.version`,
    )
    .bind(JSON.stringify(confirmed.map((job) => [job.id, job.version])))
    .run();
}

/** What a shard is sent of a job (its spec as JSON, serialized once per spec object). */
/** The outbox: jobs whose latest version no shard confirmed yet, least recently changed first. */
export async function listUnsyncedJobs(db: D1Database, limit: number): Promise<StoredJob[]> {
  const { results } = await db
    .prepare("SELECT * FROM jobs WHERE synced_version < version ORDER BY updated_at_ms LIMIT ?")
    .bind(limit)
    .all<JobRow>();
  return results.map(rowToJob);
}

/**
 * Statuses a shard decided (COMPLETED keeps the version; a shard-side pause bumped it by one),
 * written as synced. Never resurrects a deletion or overwrites a newer edit D1 already holds.
 * One statement for all of them: a burst of one-shot jobs completes thousands at once.
 */
export async function applyShardJobStatuses(
  db: D1Database,
  decided: readonly { id: string; status: JobStatus; version: number }[],
  nowMs: number,
): Promise<void> {
  if (decided.length === 0) return;
  await db
    .prepare(
      `UPDATE jobs SET status = decided.status, version = decided.version, synced_version = decided.version,
         updated_at_ms = ?2
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS status,
               json_extract(value, '$[2]') AS version FROM json_each(?1)) AS decided
       WHERE jobs.id = decided.id AND jobs.version IN (decided.version, decided.version - 1)
         AND jobs.status NOT IN ('DELETED')`,
    )
    .bind(JSON.stringify(decided.map((job) => [job.id, job.status, job.version])), nowMs)
    .run();
}
