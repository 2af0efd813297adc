// What changed in a shard's state since its last commit (./shard-state.ts notes every change here),
// and the journal entry those changes make.
import type { Run } from "../records/run";
import type { JobRecord } from "./job-book";
import type { GoneRun, JournalEntry } from "./journal-entries";
import type { SnapshotChunks } from "./snapshot-chunks";
import type { SettledStats } from "./stats-book";

export class PendingChanges {
  readonly dirtyRuns = new Set<Run>();
  readonly goneRuns = new Map<string, GoneRun>();
  /** Runs that settled: their records go into history pages at the commit (./settled-pages.ts). */
  readonly settledRuns: Run[] = [];
  readonly settledStats: SettledStats[] = [];
  readonly uncounted: [string, string, number][] = [];
  readonly dirtyJobs = new Set<JobRecord>();
  readonly goneJobs = new Set<string>();

  /** Whether anything changed since the last commit. */
  get any(): boolean {
    return (
      this.dirtyRuns.size > 0 ||
      this.goneRuns.size > 0 ||
      this.dirtyJobs.size > 0 ||
      this.goneJobs.size > 0 ||
      this.uncounted.length > 0
    );
  }

  /**
   * The journal entry of the changes (its seq set as it is written), their checkpoint chunks
   * marked; the changes are then cleared. The settled runs are not in it: they go into pages.
   */
  takeEntry(atMs: number, fence: number, page: number, chunks: SnapshotChunks): JournalEntry {
    const entry: JournalEntry = {
      seq: 0,
      atMs,
      fence,
      page,
      runs: [...this.dirtyRuns],
      gone: [...this.goneRuns.values()],
      settled: this.settledStats.splice(0),
      jobs: [...this.dirtyJobs],
      jobsGone: [...this.goneJobs],
      uncounted: this.uncounted.splice(0),
    };
    for (const run of this.dirtyRuns) chunks.runChanged(run.run_id);
    for (const [runId] of this.goneRuns.values()) chunks.runChanged(runId);
    for (const job of this.dirtyJobs) chunks.jobChanged(job.job_id);
    for (const jobId of this.goneJobs) chunks.jobChanged(jobId);
    this.dirtyRuns.clear();
    this.goneRuns.clear();
    this.dirtyJobs.clear();
    this.goneJobs.clear();
    return entry;
  }
}
