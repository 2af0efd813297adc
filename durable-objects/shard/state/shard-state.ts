// A shard's state: its live runs, its jobs' timing and its stats in memory, made durable by batch.
// Every change goes through this object, which notes what changed; `commit` then writes it all as
// one journal row (../store/journal.ts), plus one history page per (tenant, outcome, bucket) for
// the runs that settled (../store/history-pages.ts). A checkpoint writes the whole state in chunks
// every so often (../store/snapshot.ts), so a restart reads the checkpoint and replays the few
// journal rows after it. Rows are billed by count, not size: a pass that fires 1,000 runs, a claim
// of 100, an outcome batch of 50 each write one journal row, not one row (and its index entries)
// per run and per state change.
//
// Commit before anything outside sees a change (a queue send, an RPC's answer): the runtime's
// output gate holds those until the write is durable, so nothing acts on a change a crash could undo.
import type { Run } from "../records/run";
import { bucketOf } from "../store/history-pages";
import { JOURNAL_SLOTS, lastJournalSeq, writeJournalEntry } from "../store/journal";
import {
  HEADER_SLOT,
  JOB_SLOTS,
  RUN_SLOTS,
  readSnapshot,
  STATS_SLOT,
  writeSnapshotSlot,
} from "../store/snapshot";
import { JobBook, type JobRecord, noteHistoryBucket } from "./job-book";
import { journalBodies } from "./journal-entries";
import { replayJournal } from "./journal-replay";
import { PendingChanges } from "./pending-changes";
import { indexStateOf, RunBook } from "./run-book";
import { writeSettledPages } from "./settled-pages";
import { SnapshotChunks } from "./snapshot-chunks";
import { StatsBook, settledStatsOf } from "./stats-book";

interface CheckpointHeader {
  seq: number;
  fence: number;
  page: number;
  jobChunks: number;
  runChunks: number;
  atMs: number;
}

/** Checkpoint after this many journal rows, or this many characters of them: a restart replays at most that. */
const CHECKPOINT_EVERY_ENTRIES = 1_024;
const CHECKPOINT_EVERY_CHARS = 16_000_000;
/** And at least this often while anything changes, so a quiet shard's restart reads little. */
const CHECKPOINT_MAX_AGE_MS = 10 * 60_000;
/** Settled runs whose final state is kept at hand (see recentlySettled). */
const RECENTLY_SETTLED_KEPT = 50_000;

export class ShardState {
  readonly runs = new RunBook();
  readonly jobs = new JobBook();
  readonly stats = new StatsBook();
  /** The last fence handed out (every send of a new attempt takes the next). */
  private fenceSeq = 0;
  private pageSeq = 0;
  private journalSeq = 0;
  private checkpointSeq = 0;
  private charsSinceCheckpoint = 0;
  private lastCheckpointAtMs = 0;
  private readonly chunks = new SnapshotChunks();
  private readonly changes = new PendingChanges();
  private statsDirty = false;
  /**
   * The final state of runs that settled lately, by id: a claim or report of one (a message
   * delivered again, a call cancelled meanwhile) is answered without reading its history page.
   */
  private readonly recentlySettled = new Map<string, string>();

  constructor(readonly sql: SqlStorage) {}

  /** A run that settled lately: its final state (undefined: not known here, read its history). */
  settledState(runId: string): string | undefined {
    return this.recentlySettled.get(runId);
  }

  // --- changes ---------------------------------------------------------------------------------

  /** A new run (or one an operator revived from its history). */
  addRun(run: Run): void {
    this.runs.add(run);
    this.changes.dirtyRuns.add(run);
  }

  /**
   * Changes a live run: `mutate` sets its fields; its indexes follow, and the next commit writes it.
   * Every state change goes through ./run-moves.ts, which calls this.
   */
  changeRun(run: Run, mutate: (run: Run) => void): void {
    const before = indexStateOf(run);
    mutate(run);
    run.rev += 1;
    this.runs.changed(run, before);
    this.changes.dirtyRuns.add(run);
  }

  /**
   * Moves a live run's lease in memory only: no journal entry (a renewal per run would be a row
   * per run). The lease a restart reads back is the one last written (../runs/leases.ts).
   */
  holdLease(run: Run, dueAtMs: number): void {
    const before = indexStateOf(run);
    run.due_at_ms = dueAtMs;
    this.runs.changed(run, before);
  }

  /** A terminal run leaves memory: its record goes into a history page at the next commit. */
  settleRun(run: Run): void {
    if (!this.runs.has(run.run_id)) return;
    this.runs.remove(run);
    this.changes.dirtyRuns.delete(run);
    this.changes.goneRuns.set(run.run_id, [run.run_id, run.job_id, run.scheduled_at_ms, 1]);
    this.changes.settledRuns.push(run);
    this.recentlySettled.delete(run.run_id);
    this.recentlySettled.set(run.run_id, run.state);
    if (this.recentlySettled.size > RECENTLY_SETTLED_KEPT) {
      const oldest = this.recentlySettled.keys().next().value;
      if (oldest !== undefined) this.recentlySettled.delete(oldest);
    }
    const stats = settledStatsOf(run);
    this.changes.settledStats.push(stats);
    this.stats.add(stats);
    this.statsDirty = true;
    const job = this.jobs.get(run.job_id);
    if (job !== undefined) {
      this.noteSettledInto(job, run);
      this.releaseDeferredCompletion(job);
    }
  }

  /** A run leaves memory without a record (a run sent ahead whose instant is decided anew). */
  dropRun(run: Run): void {
    if (!this.runs.has(run.run_id)) return;
    this.runs.remove(run);
    this.changes.dirtyRuns.delete(run);
    this.changes.goneRuns.set(run.run_id, [run.run_id, run.job_id, run.scheduled_at_ms, 0]);
    const job = this.jobs.get(run.job_id);
    if (job !== undefined) this.releaseDeferredCompletion(job);
  }

  /**
   * A job that fired its last instant while a run of it lived waits with its COMPLETED (status_dirty
   * 2) until that run is done: then it may reach D1 (../write-behind.ts).
   */
  private releaseDeferredCompletion(job: JobRecord): void {
    if (job.status_dirty !== 2 || this.runs.ofJob(job.job_id).length > 0) return;
    job.status_dirty = 1;
    this.touchJob(job);
  }

  /** A job whose record changed (its timer, status, counters): refiled, and written at the next commit. */
  touchJob(job: JobRecord): void {
    this.jobs.fileTimer(job);
    this.changes.dirtyJobs.add(job);
  }

  putJob(job: JobRecord): void {
    this.jobs.put(job);
    this.changes.goneJobs.delete(job.job_id);
    this.changes.dirtyJobs.add(job);
  }

  removeJob(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (job !== undefined) this.changes.dirtyJobs.delete(job);
    this.jobs.remove(jobId);
    this.changes.goneJobs.add(jobId);
  }

  /** Reserves `count` consecutive fences; returns the first. */
  nextFences(count: number): number {
    const first = this.fenceSeq + 1;
    this.fenceSeq += count;
    return first;
  }

  /** The aggregates schema v23 kept in tables (the first start of storage by batch). */
  importLegacyStats(
    counts: { tenant_id: string; state: string; n: number }[],
    minutes: { tenant_id: string; minute_ms: number; triggers: number; failures: number }[],
  ): void {
    for (const row of counts) this.stats.count(row.tenant_id, row.state, row.n);
    for (const row of minutes) this.stats.addMinute(row.tenant_id, row.minute_ms, row.triggers, row.failures);
    this.statsDirty = true;
  }

  /** Settled runs the stats stop counting (their history was pruned, an operator revived one). */
  uncount(tenantId: string, runState: string, n: number): void {
    this.stats.count(tenantId, runState, -n);
    this.changes.uncounted.push([tenantId, runState, n]);
    this.statsDirty = true;
  }

  /** Whether anything changed since the last commit. */
  get uncommitted(): boolean {
    return this.changes.any;
  }

  // --- durability ------------------------------------------------------------------------------

  /**
   * Writes what changed since the last commit: the settled runs' history pages and one journal row
   * (more only past ~1 MB). Synchronous, so it is one transaction with whatever else this event
   * wrote. Checkpoints when the journal since the last one has grown.
   */
  commit(nowMs = Date.now()): void {
    if (!this.uncommitted) return;
    writeSettledPages(this.sql, this.changes.settledRuns, nowMs, () => {
      this.pageSeq += 1;
      return this.pageSeq;
    });
    const entry = this.changes.takeEntry(nowMs, this.fenceSeq, this.pageSeq, this.chunks);
    for (const body of journalBodies(entry, this.journalSeq + 1)) {
      this.journalSeq += 1;
      writeJournalEntry(this.sql, this.journalSeq, body);
      this.charsSinceCheckpoint += body.length;
    }
    const entries = this.journalSeq - this.checkpointSeq;
    if (
      entries >= CHECKPOINT_EVERY_ENTRIES ||
      this.charsSinceCheckpoint >= CHECKPOINT_EVERY_CHARS ||
      nowMs - this.lastCheckpointAtMs >= CHECKPOINT_MAX_AGE_MS
    ) {
      this.checkpoint(nowMs);
    }
  }

  /** Writes the chunks that changed since the last checkpoint; the journal before it is then done with. */
  checkpoint(nowMs = Date.now()): void {
    this.chunks.write(this.sql, this.jobs, this.runs);
    if (this.statsDirty) {
      this.stats.forgetOldMinutes(nowMs);
      writeSnapshotSlot(this.sql, STATS_SLOT, JSON.stringify(this.stats.snapshot()));
      this.statsDirty = false;
    }
    const header: CheckpointHeader = {
      seq: this.journalSeq,
      fence: this.fenceSeq,
      page: this.pageSeq,
      jobChunks: this.chunks.jobChunks,
      runChunks: this.chunks.runChunks,
      atMs: nowMs,
    };
    writeSnapshotSlot(this.sql, HEADER_SLOT, JSON.stringify(header));
    this.checkpointSeq = this.journalSeq;
    this.charsSinceCheckpoint = 0;
    this.lastCheckpointAtMs = nowMs;
  }

  /** Reads the checkpoint and replays the journal after it. Returns false when there is none. */
  restore(): boolean {
    const slots = readSnapshot(this.sql);
    const headerText = slots.get(HEADER_SLOT);
    this.journalSeq = lastJournalSeq(this.sql);
    if (headerText === undefined) {
      if (this.journalSeq > 0) this.replayAfter(0);
      return this.journalSeq > 0;
    }
    const header = JSON.parse(headerText) as CheckpointHeader;
    this.fenceSeq = header.fence;
    this.pageSeq = header.page;
    this.chunks.jobChunks = header.jobChunks;
    this.chunks.runChunks = header.runChunks;
    this.checkpointSeq = header.seq;
    this.lastCheckpointAtMs = header.atMs;
    for (const [slot, body] of slots) {
      if (slot >= RUN_SLOTS) for (const run of JSON.parse(body) as Run[]) this.runs.add(run);
      else if (slot >= JOB_SLOTS) for (const job of JSON.parse(body) as JobRecord[]) this.jobs.put(job);
      else if (slot === STATS_SLOT) this.stats.restore(JSON.parse(body));
    }
    this.replayAfter(header.seq);
    return true;
  }

  private replayAfter(seq: number): void {
    const replayed = replayJournal(this.sql, seq, this, this.chunks);
    this.fenceSeq = Math.max(this.fenceSeq, replayed.fence);
    this.pageSeq = Math.max(this.pageSeq, replayed.page);
    if (replayed.statsChanged) this.statsDirty = true;
    this.charsSinceCheckpoint += replayed.chars;
  }

  /**
   * Notes in its job where a settled run's record is. Not journaled: a replay learns it from the
   * run leaving (`gone`); the next checkpoint writes the job's chunk.
   */
  private noteSettledInto(job: JobRecord, run: Run): void {
    if (noteHistoryBucket(job, bucketOf(run.scheduled_at_ms))) this.markJobForCheckpoint(job);
  }

  /** A job changed in a way the journal need not carry (a replay derives it): its chunk is rewritten. */
  markJobForCheckpoint(job: JobRecord): void {
    this.chunks.jobChanged(job.job_id);
  }

  /** How far the journal ring is from wrapping over entries the checkpoint does not cover. */
  get journalRoom(): number {
    return JOURNAL_SLOTS - (this.journalSeq - this.checkpointSeq);
  }
}
