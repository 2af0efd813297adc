// The runs a commit settled, written as history pages (../store/history-pages.ts): one page per
// (tenant, outcome, bucket) of the commit, so a thousand runs settling together are a few rows.
import { type HistoryPageRecord, pageRecordOf } from "../records/page-records";
import type { Run } from "../records/run";
import { bucketOf, jobIdsField, type PageOutcome, writePage } from "../store/history-pages";

/**
 * The settled runs into pages: one per (tenant, outcome, bucket) of this commit. Empties
 * `settledRuns`; each page takes its seq from `nextPageSeq`.
 */
export function writeSettledPages(
  sql: SqlStorage,
  settledRuns: Run[],
  nowMs: number,
  nextPageSeq: () => number,
): void {
  if (settledRuns.length === 0) return;
  const groups = new Map<string, { tenantId: string; outcome: PageOutcome; bucketMs: number; runs: Run[] }>();
  for (const run of settledRuns) {
    const outcome: PageOutcome = run.state === "SUCCEEDED" ? "ok" : "other";
    const bucketMs = bucketOf(run.scheduled_at_ms);
    const key = `${run.tenant_id}\u0000${outcome}\u0000${bucketMs}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { tenantId: run.tenant_id, outcome, bucketMs, runs: [] };
      groups.set(key, group);
    }
    group.runs.push(run);
  }
  settledRuns.length = 0;
  for (const group of groups.values()) {
    const seq = nextPageSeq();
    const counts: Record<string, number> = {};
    const records: HistoryPageRecord[] = [];
    for (const run of group.runs) {
      counts[run.state] = (counts[run.state] ?? 0) + 1;
      records.push(pageRecordOf(run));
    }
    writePage(sql, {
      tenant_id: group.tenantId,
      outcome: group.outcome,
      bucket_ms: group.bucketMs,
      seq,
      written_at_ms: nowMs,
      job_ids: jobIdsField(group.runs.map((run) => run.job_id)),
      counts: JSON.stringify(counts),
      body: JSON.stringify(records),
    });
  }
}
