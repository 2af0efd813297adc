// Instants that will not run, recorded as SKIPPED runs: those a calendar, the job's `exclude` or
// its delivery window covers, and those missed beyond the misfire grace (./firing.ts records both as
// it fires; a backfill, ../runs/operator-runs.ts, records an excluded instant too).

import type { JobFire } from "../../../src/core/jobs/job-timeline";
import { jobSpec } from "../jobs/job-specs";
import type { JobRecord } from "../state/job-book";
import { insertRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

/** The reason of a SKIPPED run whose instant an exclusion covers (docs/API.md). */
export const EXCLUDED_REASON = "excluded";
/** SKIPPED runs recorded per pass; beyond this only the count is kept (in the last one's reason). */
const MAX_SKIPPED_RECORDS = 100;

/**
 * An instant a calendar or the job's `exclude` covers becomes a SKIPPED run with reason
 * `excluded`, on time or late alike (the misfire policy is for instants that should have run);
 * one outside the delivery window, with reason `outside_window` or `outside_window_folded`.
 */
export function recordExcluded(
  state: ShardState,
  job: JobRecord,
  due: readonly JobFire[],
  nowMs: number,
): number {
  let recorded = 0;
  for (const fire of due) {
    if (!fire.excluded) continue;
    if (insertSkippedRun(state, job, fire, fire.skipReason ?? EXCLUDED_REASON, nowMs) !== null) recorded += 1;
  }
  return recorded;
}

/** Instants missed beyond the grace, as SKIPPED runs: the newest MAX_SKIPPED_RECORDS, the rest counted. */
export function recordSkipped(
  state: ShardState,
  job: JobRecord,
  skipped: JobFire[],
  uncounted: number,
  policy: string,
  nowMs: number,
): void {
  const recorded = skipped.slice(-MAX_SKIPPED_RECORDS);
  const notRecorded = skipped.length - recorded.length;
  recorded.forEach((fire, index) => {
    const last = index === recorded.length - 1;
    const more =
      last && (notRecorded > 0 || uncounted > 0)
        ? ` (${notRecorded} older missed instants not recorded${uncounted > 0 ? ", more beyond the pass limit" : ""})`
        : "";
    insertSkippedRun(state, job, fire, `misfire ${policy}: instant missed beyond grace${more}`, nowMs);
  });
}

/** A scheduled instant that will not run, recorded as a SKIPPED run with its reason. */
function insertSkippedRun(state: ShardState, job: JobRecord, fire: JobFire, reason: string, nowMs: number) {
  return insertRun(state, {
    jobId: job.job_id,
    tenantId: job.tenant_id,
    kind: "schedule",
    scheduledAtMs: fire.scheduledAtMs,
    fireAtMs: fire.fireAtMs,
    maxAttempts: jobSpec(state, job).retry.max_attempts,
    jobVersion: job.version,
    priority: job.priority,
    state: "SKIPPED",
    dueAtMs: null,
    waiting: null,
    reason,
    nowMs,
  });
}
