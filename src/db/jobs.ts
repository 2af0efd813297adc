// A job's row in one job database: its shape, its reading as a StoredJob, its insert, and the reads
// by id, by idempotency key and by page. Routing across databases is ./job-store.ts's.
import { parseJsonColumn } from "../core/common/stored-values";
import { impliedEndMs } from "../core/jobs/job-end";
import type { JobSpec } from "../core/jobs/job-spec";
import { jsonBytes, STATEMENT_LIMITS, splitIntoBatches } from "../core/load/queue-limits";
import type { JobStatus } from "../core/runs/run-state";
import { readStatus, statusFilterSql, statusFilterValues } from "./job-read-status";

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
