// One run's record, wherever the shard holds it (live in memory, in its history page, in the table
// history used before pages), and what the runs' writers ask of it: is an instant taken, did a run
// settle.
import { runIdFor } from "../../../src/core/runs/run-id";
import { type StoredRecord, storedRecordOfRun } from "../records/page-records";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { bucketOf, pagesOfJobInBucket } from "../store/history-pages";
import { legacyRecord } from "./legacy-reads";
import { RunSet, recordsOfPage } from "./record-lists";

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
