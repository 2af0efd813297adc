// Replaying the journal rows after a checkpoint (../store/journal.ts) into the books, each row as
// its commit left memory: what left before what changed.
import { bucketOf } from "../store/history-pages";
import { journalEntriesAfter } from "../store/journal";
import { type JobBook, noteHistoryBucket } from "./job-book";
import type { JournalEntry } from "./journal-entries";
import type { RunBook } from "./run-book";
import type { SnapshotChunks } from "./snapshot-chunks";
import type { StatsBook } from "./stats-book";

/** What a replay learned besides the books: the highest fence and page seq, the rows' length. */
export interface ReplayedJournal {
  fence: number;
  page: number;
  chars: number;
  /** Whether a row changed the stats (the next checkpoint writes them). */
  statsChanged: boolean;
}

/** Applies the journal rows after `afterSeq` to the books; the chunks they touch are marked. */
export function replayJournal(
  sql: SqlStorage,
  afterSeq: number,
  books: { readonly runs: RunBook; readonly jobs: JobBook; readonly stats: StatsBook },
  chunks: SnapshotChunks,
): ReplayedJournal {
  const replayed: ReplayedJournal = { fence: 0, page: 0, chars: 0, statsChanged: false };
  const { runs, jobs, stats } = books;
  for (const row of journalEntriesAfter(sql, afterSeq)) {
    const entry = JSON.parse(row.body) as JournalEntry;
    replayed.fence = Math.max(replayed.fence, entry.fence);
    replayed.page = Math.max(replayed.page, entry.page);
    for (const [runId, jobId, scheduledAtMs, settled] of entry.gone ?? []) {
      const run = runs.get(runId);
      if (run !== undefined) runs.remove(run);
      const job = jobs.get(jobId);
      if (settled === 1 && job !== undefined) noteHistoryBucket(job, bucketOf(scheduledAtMs));
      chunks.runChanged(runId);
    }
    for (const settledStats of entry.settled ?? []) {
      stats.add(settledStats);
      replayed.statsChanged = true;
    }
    for (const [tenantId, runState, n] of entry.uncounted ?? []) {
      stats.count(tenantId, runState, -n);
      replayed.statsChanged = true;
    }
    for (const job of entry.jobs ?? []) {
      jobs.put(job);
      chunks.jobChanged(job.job_id);
    }
    for (const jobId of entry.jobsGone ?? []) {
      jobs.remove(jobId);
      chunks.jobChanged(jobId);
    }
    for (const run of entry.runs ?? []) {
      runs.add(run);
      chunks.runChanged(run.run_id);
    }
    replayed.chars += row.body.length;
  }
  return replayed;
}
