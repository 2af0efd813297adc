// Reads of a shard's run history: one run, a job's runs, this shard's part of a tenant's runs (the
// Worker merges the shards' pages), the aggregates behind the stats and the missed-run check.
// A run is the newest of what the shard has of it: its live state in memory, its records in the
// history pages (../store/history-pages.ts), a record in the table history used before pages.
// Lists run newest instant first, ties by run id descending.

import { runIdFor } from "../../../src/core/runs/run-id";
import { runIdempotencyKey } from "../../../src/core/runs/run-idempotency";
import { UNCLAIMED_STATES } from "../../../src/core/runs/run-state";
import type {
  FiredSinceQuery,
  HistoryCursor,
  HistoryRecord,
  HistoryStats,
  HistoryStatsQuery,
  JobHistoryQuery,
  TenantHistoryQuery,
} from "../../../src/shard/history-protocol";
import {
  type HistoryPageRecord,
  type StoredRecord,
  storedRecordOfPage,
  storedRecordOfRun,
} from "../records/page-records";
import type { Run } from "../records/run";
import { type JobRecord, MAX_HISTORY_BUCKETS } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { latenessSampleOf } from "../state/stats-book";
import {
  bucketOf,
  HISTORY_BUCKET_MS,
  type PageOutcome,
  type PageRow,
  pagesOfJobInBucket,
  tenantPages,
} from "../store/history-pages";
import { legacyFiredSince, legacyJobRecords, legacyRecord, legacyTenantRecords } from "./legacy-reads";

/** Pages read at a time from a tenant's history. */
const PAGES_PER_READ = 32;

export function recordOf(row: StoredRecord, shard: number): HistoryRecord {
  return {
    ...row,
    id: runIdFor(row.job_id, row.scheduled_at_ms),
    shard,
    idempotency_key: runIdempotencyKey(row.job_id, row.scheduled_at_ms),
  };
}

/** The records a page holds, as reads return them. */
export function recordsOfPage(page: PageRow): StoredRecord[] {
  return (JSON.parse(page.body) as HistoryPageRecord[]).map((record) =>
    storedRecordOfPage(page.tenant_id, record),
  );
}

/** Newest instant first, then run id descending: the order of every list. */
function newestFirst(a: StoredRecord, b: StoredRecord): number {
  if (a.scheduled_at_ms !== b.scheduled_at_ms) return b.scheduled_at_ms - a.scheduled_at_ms;
  const idA = runIdFor(a.job_id, a.scheduled_at_ms);
  const idB = runIdFor(b.job_id, b.scheduled_at_ms);
  return idA < idB ? 1 : idA > idB ? -1 : 0;
}

/** Strictly after the cursor in newest-first order. */
function afterCursor(record: StoredRecord, cursor: HistoryCursor | undefined): boolean {
  if (cursor === undefined) return true;
  if (record.scheduled_at_ms !== cursor.ms) return record.scheduled_at_ms < cursor.ms;
  return runIdFor(record.job_id, record.scheduled_at_ms) < cursor.id;
}

/**
 * Keeps one record per run: its live state if it has one, else its newest record (an operator's
 * retry writes a run's record again).
 */
class RunSet {
  private readonly byId = new Map<string, { record: StoredRecord; live: boolean }>();

  add(record: StoredRecord, live = false): void {
    const id = runIdFor(record.job_id, record.scheduled_at_ms);
    const held = this.byId.get(id);
    if (held !== undefined && (held.live || (!live && held.record.updated_at_ms >= record.updated_at_ms)))
      return;
    this.byId.set(id, { record, live });
  }

  sorted(): StoredRecord[] {
    return [...this.byId.values()].map((entry) => entry.record).sort(newestFirst);
  }

  get size(): number {
    return this.byId.size;
  }
}

function liveRecord(state: ShardState, runId: string, tenantId: string): StoredRecord | null {
  const live = state.runs.get(runId);
  return live !== undefined && live.tenant_id === tenantId ? storedRecordOfRun(live) : null;
}

/** One run's record: live, in its page, or in the old table. */
export function findRecord(
  state: ShardState,
  tenantId: string,
  jobId: string,
  scheduledAtMs: number,
): StoredRecord | null {
  const live = liveRecord(state, runIdFor(jobId, scheduledAtMs), tenantId);
  if (live !== null) return live;
  const found = new RunSet();
  for (const page of pagesOfJobInBucket(state.sql, tenantId, bucketOf(scheduledAtMs), jobId)) {
    for (const record of recordsOfPage(page)) {
      if (record.job_id === jobId && record.scheduled_at_ms === scheduledAtMs) found.add(record);
    }
  }
  const legacy = legacyRecord(state.sql, tenantId, jobId, scheduledAtMs);
  if (legacy !== null) found.add(legacy);
  return found.sorted()[0] ?? null;
}

export function historyRun(
  state: ShardState,
  shard: number,
  tenantId: string,
  jobId: string,
  scheduledAtMs: number,
): HistoryRecord | null {
  const record = findRecord(state, tenantId, jobId, scheduledAtMs);
  return record === null ? null : recordOf(record, shard);
}

/**
 * Whether (job, instant) has a run: live, or settled into its history. A settled run's instant
 * stays taken: an operator's trigger or backfill never runs it again.
 */
export function instantTaken(
  state: ShardState,
  job: JobRecord,
  runId: string,
  scheduledAtMs: number,
): boolean {
  if (state.runs.has(runId) || state.settledState(runId) !== undefined) return true;
  return findRecord(state, job.tenant_id, job.job_id, scheduledAtMs) !== null;
}

/**
 * Whether a run with no live state settled (a claim or report of it is then a message delivered
 * again, not one for a run never known), and its final state.
 */
export function settledStateOf(
  state: ShardState,
  runId: string,
  jobId: string,
  scheduledAtMs: number,
): string | null {
  const known = state.settledState(runId);
  if (known !== undefined) return known;
  const job = state.jobs.get(jobId);
  if (job === undefined) return null;
  return findRecord(state, job.tenant_id, jobId, scheduledAtMs)?.state ?? null;
}

/** The job's records in history buckets at or before `atOrBeforeBucketMs`, from its bucket list. */
function jobRecordsFromBuckets(
  state: ShardState,
  job: JobRecord,
  atOrBeforeBucketMs: number,
  want: number,
  into: RunSet,
): { complete: boolean; oldestBucketMs: number | null } {
  const buckets = job.history_buckets.filter((bucketMs) => bucketMs <= atOrBeforeBucketMs).reverse();
  let oldestBucketMs: number | null = null;
  for (const bucketMs of buckets) {
    for (const page of pagesOfJobInBucket(state.sql, job.tenant_id, bucketMs, job.job_id)) {
      for (const record of recordsOfPage(page)) if (record.job_id === job.job_id) into.add(record);
    }
    oldestBucketMs = bucketMs;
    if (into.size >= want) return { complete: true, oldestBucketMs };
  }
  // The list keeps a job's newest buckets only: a full list may leave older ones out.
  return { complete: job.history_buckets.length < MAX_HISTORY_BUCKETS, oldestBucketMs };
}

/** A tenant's pages of one outcome from `fromBucketMs` down, while `more` wants them. */
function scanTenantPages(
  state: ShardState,
  tenantId: string,
  outcome: PageOutcome,
  fromBucketMs: number,
  jobId: string | undefined,
  more: (pagesRead: PageRow[]) => boolean,
): void {
  let atOrBeforeBucketMs = fromBucketMs;
  let skipSeqAbove: number | null = null;
  for (;;) {
    const pages = tenantPages(state.sql, {
      tenantId,
      outcome,
      atOrBeforeBucketMs,
      ...(jobId === undefined ? {} : { jobId }),
      limit: PAGES_PER_READ,
    }).filter(
      (page) => skipSeqAbove === null || page.bucket_ms < atOrBeforeBucketMs || page.seq < skipSeqAbove,
    );
    if (pages.length === 0 || !more(pages)) return;
    const last = pages[pages.length - 1] as PageRow;
    atOrBeforeBucketMs = last.bucket_ms;
    skipSeqAbove = last.seq;
  }
}

/** Reads pages until `want` records are held and the last bucket read is complete. */
function collectFromPages(
  state: ShardState,
  tenantId: string,
  outcome: PageOutcome,
  fromBucketMs: number,
  jobId: string | undefined,
  keep: (record: StoredRecord) => boolean,
  want: number,
  into: RunSet,
): void {
  let held = 0;
  let lastBucketMs: number | null = null;
  scanTenantPages(state, tenantId, outcome, fromBucketMs, jobId, (pages) => {
    for (const page of pages) {
      // Every page of a bucket is read before stopping: a later page may hold newer instants.
      if (held >= want && lastBucketMs !== null && page.bucket_ms < lastBucketMs) return false;
      for (const record of recordsOfPage(page)) {
        if (!keep(record)) continue;
        into.add(record);
        held += 1;
      }
      lastBucketMs = page.bucket_ms;
    }
    return true;
  });
}

export function jobHistory(state: ShardState, shard: number, query: JobHistoryQuery): HistoryRecord[] {
  return jobRecords(state, query.tenantId, query.jobId, query.cursor, query.limit, undefined).map((row) =>
    recordOf(row, shard),
  );
}

/** A job's runs (of one state, when asked), newest instant first, after the cursor. */
function jobRecords(
  state: ShardState,
  tenantId: string,
  jobId: string,
  cursor: HistoryCursor | undefined,
  limit: number,
  runState: string | undefined,
): StoredRecord[] {
  const keep = (record: StoredRecord) =>
    record.job_id === jobId &&
    afterCursor(record, cursor) &&
    (runState === undefined || record.state === runState);
  const found = new RunSet();
  for (const run of state.runs.ofJob(jobId)) {
    const record = storedRecordOfRun(run);
    if (run.tenant_id === tenantId && keep(record)) found.add(record, true);
  }
  const fromBucketMs = cursor === undefined ? Number.MAX_SAFE_INTEGER : bucketOf(cursor.ms);
  const job = state.jobs.get(jobId);
  const fromPages = new RunSet();
  if (job !== undefined && job.tenant_id === tenantId) {
    const listed = jobRecordsFromBuckets(state, job, fromBucketMs, limit + found.size, fromPages);
    if (!listed.complete) {
      const belowMs =
        listed.oldestBucketMs === null ? fromBucketMs : listed.oldestBucketMs - HISTORY_BUCKET_MS;
      for (const outcome of ["ok", "other"] as const) {
        collectFromPages(state, tenantId, outcome, belowMs, jobId, keep, limit, fromPages);
      }
    }
  }
  for (const record of fromPages.sorted()) if (keep(record)) found.add(record);
  const beforeMs = cursor === undefined ? Number.MAX_SAFE_INTEGER : cursor.ms + 1;
  for (const record of legacyJobRecords(state.sql, tenantId, jobId, beforeMs, limit)) {
    if (keep(record)) found.add(record);
  }
  return found.sorted().slice(0, limit);
}

/** This shard's runs of a tenant (of one state, of one job, when asked), newest instant first. */
export function tenantHistory(state: ShardState, shard: number, query: TenantHistoryQuery): HistoryRecord[] {
  const { tenantId, cursor, limit } = query;
  if (query.jobId !== undefined) {
    return jobRecords(state, tenantId, query.jobId, cursor, limit, query.state).map((row) =>
      recordOf(row, shard),
    );
  }
  const keep = (record: StoredRecord) =>
    afterCursor(record, cursor) && (query.state === undefined || record.state === query.state);
  const found = new RunSet();
  for (const run of state.runs.all()) {
    if (run.tenant_id !== tenantId) continue;
    const record = storedRecordOfRun(run);
    if (keep(record)) found.add(record, true);
  }
  const fromBucketMs = cursor === undefined ? Number.MAX_SAFE_INTEGER : bucketOf(cursor.ms);
  const outcomes: PageOutcome[] =
    query.state === undefined ? ["ok", "other"] : query.state === "SUCCEEDED" ? ["ok"] : ["other"];
  for (const outcome of outcomes) {
    collectFromPages(state, tenantId, outcome, fromBucketMs, undefined, keep, limit, found);
  }
  for (const record of legacyTenantRecords(state.sql, tenantId, query.state, cursor, limit)) {
    if (keep(record)) found.add(record);
  }
  return found
    .sorted()
    .slice(0, limit)
    .map((row) => recordOf(row, shard));
}

/** Settled runs per state and per minute, recent lateness, and the runs live now. */
export function historyStats(state: ShardState, query: HistoryStatsQuery): Omit<HistoryStats, "shareWait"> {
  const byState = state.stats.byState(query.tenantId);
  const lateness = state.stats.latenessSince(query.tenantId, query.sinceMs, query.latenessLimit);
  for (const run of state.runs.all()) {
    if (query.tenantId !== null && run.tenant_id !== query.tenantId) continue;
    byState.set(run.state, (byState.get(run.state) ?? 0) + 1);
    const sample = run.created_at_ms >= query.sinceMs ? latenessSampleOf(run) : null;
    if (sample !== null) lateness.push(sample);
  }
  lateness.sort((a, b) => b.createdAtMs - a.createdAtMs);
  return {
    byState: [...byState].map(([runState, n]) => ({ state: runState, n })),
    minutes: state.stats.minutesSince(query.tenantId, query.sinceMs),
    lateness: lateness.slice(0, query.latenessLimit),
  };
}

const UNCLAIMED = new Set<string>(["SCHEDULED", ...UNCLAIMED_STATES]);

/** A run of the job's schedule (not a trigger or backfill) that a consumer took. */
function firedAs(record: Pick<Run, "kind" | "fence" | "state">): boolean {
  return (
    (record.kind === "schedule" || record.kind === "catch_up") &&
    record.fence !== null &&
    !UNCLAIMED.has(record.state)
  );
}

/**
 * Which of `queries` (by index) saw their job fire since their instant: a run of the job's
 * schedule that a consumer took (a run sent and never claimed is the missed run itself, not its
 * recovery). A query naming a run waits for that run.
 */
export function firedSince(state: ShardState, queries: readonly FiredSinceQuery[]): number[] {
  const fired: number[] = [];
  queries.forEach((query, index) => {
    const matches = (record: { scheduled_at_ms: number } & Pick<Run, "kind" | "fence" | "state">) =>
      record.scheduled_at_ms >= query.sinceMs &&
      (query.namedRunAtMs === undefined || record.scheduled_at_ms === query.namedRunAtMs) &&
      firedAs(record);
    if (state.runs.ofJob(query.jobId).some(matches)) {
      fired.push(index);
      return;
    }
    const job = state.jobs.get(query.jobId);
    if (job !== undefined) {
      const sinceBucketMs = bucketOf(query.sinceMs);
      for (const bucketMs of job.history_buckets) {
        if (bucketMs < sinceBucketMs) continue;
        const pages = pagesOfJobInBucket(state.sql, job.tenant_id, bucketMs, job.job_id);
        if (
          pages.some((page) =>
            recordsOfPage(page).some((record) => record.job_id === job.job_id && matches(record as never)),
          )
        ) {
          fired.push(index);
          return;
        }
      }
    }
    if (legacyFiredSince(state.sql, query)) fired.push(index);
  });
  return fired;
}
