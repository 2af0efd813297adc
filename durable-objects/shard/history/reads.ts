// Reads of a shard's run history: one run, a job's runs, this shard's part of a tenant's runs (the
// Worker merges the shards' pages), the aggregates behind the stats and the missed-run check.
// A run is the newest of what the shard has of it: its live state in memory, its records in the
// history pages (../store/history-pages.ts), a record in the table history used before pages.
// Lists run newest instant first, ties by run id descending.
// One run's lookups are ./run-lookups.ts, the page scans ./page-scans.ts, what lists are built of
// ./record-lists.ts.

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
import { type StoredRecord, storedRecordOfRun } from "../records/page-records";
import type { Run } from "../records/run";
import type { ShardState } from "../state/shard-state";
import { latenessSampleOf } from "../state/stats-book";
import { bucketOf, HISTORY_BUCKET_MS, type PageOutcome, pagesOfJobInBucket } from "../store/history-pages";
import { legacyFiredSince, legacyJobRecords, legacyTenantRecords } from "./legacy-reads";
import { collectFromPages, jobRecordsFromBuckets } from "./page-scans";
import { afterCursor, RunSet, recordOf, recordsOfPage } from "./record-lists";
import { findRecord } from "./run-lookups";

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
