// A debounced trigger folded into a run that already settled (../runs/debounce-windows.ts): its
// history record counts the trigger, rewritten in its page.
import { runIdFor } from "../../../src/core/runs/run-id";
import type { HistoryPageRecord } from "../records/page-records";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { bucketOf, pagesOfJobInBucket, rewritePageBody } from "../store/history-pages";

/** Index of triggersFolded in a page record (../records/page-records.ts). */
const TRIGGERS_FOLDED = 21;

export function foldIntoSettledRecord(state: ShardState, job: JobRecord, scheduledAtMs: number): void {
  const runId = runIdFor(job.job_id, scheduledAtMs);
  for (const page of pagesOfJobInBucket(state.sql, job.tenant_id, bucketOf(scheduledAtMs), job.job_id)) {
    const records = JSON.parse(page.body) as HistoryPageRecord[];
    const record = records.find((candidate) => runIdFor(candidate[0], candidate[1]) === runId);
    if (record === undefined) continue;
    record[TRIGGERS_FOLDED] += 1;
    rewritePageBody(state.sql, page, JSON.stringify(records));
    return;
  }
}
