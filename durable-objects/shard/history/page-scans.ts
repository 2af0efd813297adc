// Reading history pages for a list: a job's pages through the buckets its record lists, a tenant's
// pages bucket by bucket until a list has enough.
import type { StoredRecord } from "../records/page-records";
import { type JobRecord, MAX_HISTORY_BUCKETS } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { type PageOutcome, type PageRow, pagesOfJobInBucket, tenantPages } from "../store/history-pages";
import { type RunSet, recordsOfPage } from "./record-lists";

/** Pages read at a time from a tenant's history. */
const PAGES_PER_READ = 32;

/** The job's records in history buckets at or before `atOrBeforeBucketMs`, from its bucket list. */
export function jobRecordsFromBuckets(
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
export function collectFromPages(
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
