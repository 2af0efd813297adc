// A shard's copy of its jobs: the latest version D1 sent, plus the timing state only the shard
// owns (next instant, run count, consecutive failures).
import { type CompiledExclusions, compileExclusions, type ExclusionSet } from "../../../src/core/exclusions";
import type { JobSpec } from "../../../src/core/job-spec";
import type { JobStatus } from "../../../src/shard/protocol";

export type ShardJobRow = {
  job_id: string;
  tenant_id: string;
  version: number;
  status: JobStatus;
  spec_json: string;
  created_at_ms: number;
  next_scheduled_ms: number | null;
  next_fire_ms: number | null;
  run_count: number;
  consecutive_failures: number;
  paused_at_ms: number | null;
  pause_reason: string | null;
  status_dirty: number;
  last_missed_alert_ms: number | null;
  /** The last scheduled instant handled; NULL: none yet (the schedule runs from creation). */
  fired_through_ms: number | null;
  calendars_json: string;
  calendars_revision: number;
  /** The instant whose run was queued ahead of it (./ahead.ts); NULL: none. */
  ahead_scheduled_ms: number | null;
};

// Parsing a spec on every fire would dominate the tick; a version never changes its spec.
const SPEC_CACHE_LIMIT = 20_000;
const specCache = new Map<string, JobSpec>();

function specKey(job: Pick<ShardJobRow, "job_id" | "version">): string {
  return `${job.job_id}@${job.version}`;
}

export function specOf(job: Pick<ShardJobRow, "job_id" | "version" | "spec_json">): JobSpec {
  const key = specKey(job);
  let spec = specCache.get(key);
  if (!spec) {
    spec = JSON.parse(job.spec_json) as JobSpec;
    remember(specCache, key, spec);
  }
  return spec;
}

/** Entries dropped at once when a cache is full: one walk per tenth of the cache, not per entry. */
const EVICT_AT_ONCE = SPEC_CACHE_LIMIT / 10;

/**
 * Adds to a bounded cache, dropping the oldest tenth when full: the jobs touched last (a burst's
 * jobs were created, then sent ahead, then claimed) stay, where clearing the whole cache when full
 * dropped them at an arbitrary moment. (Dropping one entry per insert walked the map's deleted
 * slots from its start every time.)
 */
function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= SPEC_CACHE_LIMIT) {
    let dropped = 0;
    for (const oldest of cache.keys()) {
      cache.delete(oldest);
      if (++dropped >= EVICT_AT_ONCE) break;
    }
  }
  cache.set(key, value);
}

const exclusionCache = new Map<string, CompiledExclusions>();

/** The job's calendars and inline `exclude`, compiled once per version and calendar revision. */
export function exclusionsOf(
  job: Pick<ShardJobRow, "job_id" | "version" | "spec_json" | "calendars_json" | "calendars_revision">,
): CompiledExclusions {
  const key = `${job.job_id}@${job.version}@${job.calendars_revision}`;
  let compiled = exclusionCache.get(key);
  if (!compiled) {
    const exclude = specOf(job).exclude ?? null;
    const calendars = JSON.parse(job.calendars_json || "[]") as ExclusionSet[];
    compiled = compileExclusions(exclude === null ? calendars : [...calendars, exclude]);
    remember(exclusionCache, key, compiled);
  }
  return compiled;
}

/**
 * What deciding a claim or an outcome needs of a job. The rest of the row (its calendars, its
 * timer state) is not read on those paths: a claim and a report name up to 100 jobs each.
 */
export type JobHead = Pick<
  ShardJobRow,
  "job_id" | "tenant_id" | "version" | "status" | "spec_json" | "created_at_ms" | "consecutive_failures"
>;

const JOB_HEAD_COLUMNS = "job_id, tenant_id, version, status, created_at_ms, consecutive_failures";

/**
 * The heads of many jobs (see JobHead). A spec is read only for versions not in the spec cache:
 * the specs are the largest part of a job row, and a claim or a report mostly finds them cached.
 */
export function getJobHeads(sql: SqlStorage, jobIds: Iterable<string>): Map<string, JobHead> {
  const heads = jobsByIds<Omit<JobHead, "spec_json">>(sql, JOB_HEAD_COLUMNS, jobIds);
  const uncached = [...heads.values()].filter((head) => !specCache.has(specKey(head)));
  const specs = jobsByIds<{ job_id: string; spec_json: string }>(
    sql,
    "job_id, spec_json",
    uncached.map((head) => head.job_id),
  );
  const result = new Map<string, JobHead>();
  for (const [jobId, head] of heads) {
    const read = specs.get(jobId)?.spec_json;
    // A version cached a moment ago may have left the cache since: its spec is then read alone.
    result.set(jobId, {
      ...head,
      get spec_json() {
        return read ?? specJsonOf(sql, jobId);
      },
    });
  }
  return result;
}

function specJsonOf(sql: SqlStorage, jobId: string): string {
  return sql.exec<{ spec_json: string }>("SELECT spec_json FROM jobs WHERE job_id = ?", jobId).one()
    .spec_json;
}

export function getJob(sql: SqlStorage, jobId: string): ShardJobRow | null {
  return sql.exec<ShardJobRow>("SELECT * FROM jobs WHERE job_id = ?", jobId).toArray()[0] ?? null;
}

/** Many jobs in one statement (a consumer batch or a tick touches hundreds of distinct jobs). */
export function getJobs(sql: SqlStorage, jobIds: Iterable<string>): Map<string, ShardJobRow> {
  return jobsByIds<ShardJobRow>(sql, "*", jobIds);
}

function jobsByIds<Row extends { job_id: string }>(
  sql: SqlStorage,
  columns: string,
  jobIds: Iterable<string>,
): Map<string, Row> {
  const ids = [...new Set(jobIds)];
  const jobs = new Map<string, Row>();
  if (ids.length === 0) return jobs;
  const rows = sql
    .exec<Row>(
      `SELECT ${columns} FROM jobs WHERE job_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(ids),
    )
    .toArray();
  for (const row of rows) jobs.set(row.job_id, row);
  return jobs;
}

export function setJobTimer(
  sql: SqlStorage,
  job: ShardJobRow,
  next: { scheduledAtMs: number; fireAtMs: number } | null,
): void {
  job.next_scheduled_ms = next?.scheduledAtMs ?? null;
  job.next_fire_ms = next?.fireAtMs ?? null;
  sql.exec(
    "UPDATE jobs SET next_scheduled_ms = ?, next_fire_ms = ? WHERE job_id = ?",
    job.next_scheduled_ms,
    job.next_fire_ms,
    job.job_id,
  );
}

/** Records that every instant up to `firedThroughMs` was handled (a timer re-derives from it). */
export function setFiredThrough(sql: SqlStorage, job: ShardJobRow, firedThroughMs: number): void {
  job.fired_through_ms = firedThroughMs;
  sql.exec("UPDATE jobs SET fired_through_ms = ? WHERE job_id = ?", firedThroughMs, job.job_id);
}
