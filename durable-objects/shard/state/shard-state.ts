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
import { type HistoryPageRecord, pageRecordOf } from "../records/page-records";
import type { Run } from "../records/run";
import { bucketOf, jobIdsField, type PageOutcome, writePage } from "../store/history-pages";
import { JOURNAL_SLOTS, journalEntriesAfter, lastJournalSeq, writeJournalEntry } from "../store/journal";
import {
  deleteSnapshotSlots,
  HEADER_SLOT,
  JOB_SLOTS,
  RUN_SLOTS,
  readSnapshot,
  STATS_SLOT,
  writeSnapshotSlot,
} from "../store/snapshot";
import { JobBook, type JobRecord, noteHistoryBucket } from "./job-book";
import { indexStateOf, RunBook } from "./run-book";
import { type SettledStats, StatsBook, settledStatsOf } from "./stats-book";

/** A run that left memory: [run id, job id, instant, 1 if it settled into history]. */
type GoneRun = [string, string, number, 0 | 1];

interface JournalEntry {
  seq: number;
  atMs: number;
  fence: number;
  page: number;
  runs?: Run[];
  gone?: GoneRun[];
  settled?: SettledStats[];
  jobs?: JobRecord[];
  jobsGone?: string[];
  /** Settled runs the stats no longer count (pruned, revived): [tenant, state, n]. */
  uncounted?: [string, string, number][];
}

interface CheckpointHeader {
  seq: number;
  fence: number;
  page: number;
  jobChunks: number;
  runChunks: number;
  atMs: number;
}

/** A journal row stays under this (SQLite values are capped at 2 MB in a Durable Object). */
const MAX_ENTRY_CHARS = 1_000_000;
/** Checkpoint after this many journal rows, or this many characters of them: a restart replays at most that. */
const CHECKPOINT_EVERY_ENTRIES = 1_024;
const CHECKPOINT_EVERY_CHARS = 16_000_000;
/** And at least this often while anything changes, so a quiet shard's restart reads little. */
const CHECKPOINT_MAX_AGE_MS = 10 * 60_000;
/** Members per checkpoint chunk, about (the chunk count doubles as a book grows). */
const JOBS_PER_CHUNK = 512;
const RUNS_PER_CHUNK = 256;
/** Settled runs whose final state is kept at hand (see recentlySettled). */
const RECENTLY_SETTLED_KEPT = 50_000;

function chunkCountFor(members: number, perChunk: number): number {
  let chunks = 1;
  while (chunks * perChunk < members) chunks *= 2;
  return chunks;
}

/** FNV-1a: a stable spread of ids over chunks. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

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
  private jobChunks = 1;
  private runChunks = 1;
  private readonly dirtyRuns = new Set<Run>();
  private readonly goneRuns = new Map<string, GoneRun>();
  private readonly settledRuns: Run[] = [];
  private readonly settledStats: SettledStats[] = [];
  private readonly uncounted: [string, string, number][] = [];
  private readonly dirtyJobs = new Set<JobRecord>();
  private readonly goneJobs = new Set<string>();
  private readonly dirtyRunChunks = new Set<number>();
  private readonly dirtyJobChunks = new Set<number>();
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
    this.dirtyRuns.add(run);
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
    this.dirtyRuns.add(run);
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
    this.dirtyRuns.delete(run);
    this.goneRuns.set(run.run_id, [run.run_id, run.job_id, run.scheduled_at_ms, 1]);
    this.settledRuns.push(run);
    this.recentlySettled.delete(run.run_id);
    this.recentlySettled.set(run.run_id, run.state);
    if (this.recentlySettled.size > RECENTLY_SETTLED_KEPT) {
      const oldest = this.recentlySettled.keys().next().value;
      if (oldest !== undefined) this.recentlySettled.delete(oldest);
    }
    const stats = settledStatsOf(run);
    this.settledStats.push(stats);
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
    this.dirtyRuns.delete(run);
    this.goneRuns.set(run.run_id, [run.run_id, run.job_id, run.scheduled_at_ms, 0]);
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
    this.dirtyJobs.add(job);
  }

  putJob(job: JobRecord): void {
    this.jobs.put(job);
    this.goneJobs.delete(job.job_id);
    this.dirtyJobs.add(job);
  }

  removeJob(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (job !== undefined) this.dirtyJobs.delete(job);
    this.jobs.remove(jobId);
    this.goneJobs.add(jobId);
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
    this.uncounted.push([tenantId, runState, n]);
    this.statsDirty = true;
  }

  /** Whether anything changed since the last commit. */
  get uncommitted(): boolean {
    return (
      this.dirtyRuns.size > 0 ||
      this.goneRuns.size > 0 ||
      this.dirtyJobs.size > 0 ||
      this.goneJobs.size > 0 ||
      this.uncounted.length > 0
    );
  }

  // --- durability ------------------------------------------------------------------------------

  /**
   * Writes what changed since the last commit: the settled runs' history pages and one journal row
   * (more only past ~1 MB). Synchronous, so it is one transaction with whatever else this event
   * wrote. Checkpoints when the journal since the last one has grown.
   */
  commit(nowMs = Date.now()): void {
    if (!this.uncommitted) return;
    this.writePages(nowMs);
    const entry: JournalEntry = {
      seq: 0,
      atMs: nowMs,
      fence: this.fenceSeq,
      page: this.pageSeq,
      runs: [...this.dirtyRuns],
      gone: [...this.goneRuns.values()],
      settled: this.settledStats.splice(0),
      jobs: [...this.dirtyJobs],
      jobsGone: [...this.goneJobs],
      uncounted: this.uncounted.splice(0),
    };
    for (const run of this.dirtyRuns) this.dirtyRunChunks.add(hashOf(run.run_id) % this.runChunks);
    for (const [runId] of this.goneRuns.values()) this.dirtyRunChunks.add(hashOf(runId) % this.runChunks);
    for (const job of this.dirtyJobs) this.dirtyJobChunks.add(hashOf(job.job_id) % this.jobChunks);
    for (const jobId of this.goneJobs) this.dirtyJobChunks.add(hashOf(jobId) % this.jobChunks);
    this.dirtyRuns.clear();
    this.goneRuns.clear();
    this.dirtyJobs.clear();
    this.goneJobs.clear();
    for (const part of splitEntry(entry)) {
      this.journalSeq += 1;
      part.seq = this.journalSeq;
      const body = JSON.stringify(part);
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

  /** The settled runs into pages: one per (tenant, outcome, bucket) of this commit. */
  private writePages(nowMs: number): void {
    if (this.settledRuns.length === 0) return;
    const groups = new Map<
      string,
      { tenantId: string; outcome: PageOutcome; bucketMs: number; runs: Run[] }
    >();
    for (const run of this.settledRuns) {
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
    this.settledRuns.length = 0;
    for (const group of groups.values()) {
      this.pageSeq += 1;
      const counts: Record<string, number> = {};
      const records: HistoryPageRecord[] = [];
      for (const run of group.runs) {
        counts[run.state] = (counts[run.state] ?? 0) + 1;
        records.push(pageRecordOf(run));
      }
      writePage(this.sql, {
        tenant_id: group.tenantId,
        outcome: group.outcome,
        bucket_ms: group.bucketMs,
        seq: this.pageSeq,
        written_at_ms: nowMs,
        job_ids: jobIdsField(group.runs.map((run) => run.job_id)),
        counts: JSON.stringify(counts),
        body: JSON.stringify(records),
      });
    }
  }

  /** Writes the chunks that changed since the last checkpoint; the journal before it is then done with. */
  checkpoint(nowMs = Date.now()): void {
    const jobChunks = chunkCountFor(this.jobs.size, JOBS_PER_CHUNK);
    const runChunks = chunkCountFor(this.runs.size, RUNS_PER_CHUNK);
    if (jobChunks !== this.jobChunks) {
      deleteSnapshotSlots(this.sql, JOB_SLOTS, RUN_SLOTS);
      this.jobChunks = jobChunks;
      for (let chunk = 0; chunk < jobChunks; chunk++) this.dirtyJobChunks.add(chunk);
    }
    if (runChunks !== this.runChunks) {
      deleteSnapshotSlots(this.sql, RUN_SLOTS, RUN_SLOTS * 2);
      this.runChunks = runChunks;
      for (let chunk = 0; chunk < runChunks; chunk++) this.dirtyRunChunks.add(chunk);
    }
    this.writeChunks(this.dirtyJobChunks, this.jobChunks, JOB_SLOTS, this.jobs.all(), (job) => job.job_id);
    this.writeChunks(this.dirtyRunChunks, this.runChunks, RUN_SLOTS, this.runs.all(), (run) => run.run_id);
    if (this.statsDirty) {
      this.stats.forgetOldMinutes(nowMs);
      writeSnapshotSlot(this.sql, STATS_SLOT, JSON.stringify(this.stats.snapshot()));
      this.statsDirty = false;
    }
    const header: CheckpointHeader = {
      seq: this.journalSeq,
      fence: this.fenceSeq,
      page: this.pageSeq,
      jobChunks: this.jobChunks,
      runChunks: this.runChunks,
      atMs: nowMs,
    };
    writeSnapshotSlot(this.sql, HEADER_SLOT, JSON.stringify(header));
    this.checkpointSeq = this.journalSeq;
    this.charsSinceCheckpoint = 0;
    this.lastCheckpointAtMs = nowMs;
  }

  private writeChunks<T>(
    dirty: Set<number>,
    chunks: number,
    firstSlot: number,
    members: Iterable<T>,
    idOf: (member: T) => string,
  ): void {
    if (dirty.size === 0) return;
    const contents = new Map<number, T[]>([...dirty].map((chunk) => [chunk, []]));
    for (const member of members) contents.get(hashOf(idOf(member)) % chunks)?.push(member);
    for (const [chunk, list] of contents)
      writeSnapshotSlot(this.sql, firstSlot + chunk, JSON.stringify(list));
    dirty.clear();
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
    this.jobChunks = header.jobChunks;
    this.runChunks = header.runChunks;
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
    for (const row of journalEntriesAfter(this.sql, seq)) {
      const entry = JSON.parse(row.body) as JournalEntry;
      this.fenceSeq = Math.max(this.fenceSeq, entry.fence);
      this.pageSeq = Math.max(this.pageSeq, entry.page);
      for (const [runId, jobId, scheduledAtMs, settled] of entry.gone ?? []) {
        const run = this.runs.get(runId);
        if (run !== undefined) this.runs.remove(run);
        const job = this.jobs.get(jobId);
        if (settled === 1 && job !== undefined) noteHistoryBucket(job, bucketOf(scheduledAtMs));
        this.dirtyRunChunks.add(hashOf(runId) % this.runChunks);
      }
      for (const stats of entry.settled ?? []) {
        this.stats.add(stats);
        this.statsDirty = true;
      }
      for (const [tenantId, runState, n] of entry.uncounted ?? []) {
        this.stats.count(tenantId, runState, -n);
        this.statsDirty = true;
      }
      for (const job of entry.jobs ?? []) {
        this.jobs.put(job);
        this.dirtyJobChunks.add(hashOf(job.job_id) % this.jobChunks);
      }
      for (const jobId of entry.jobsGone ?? []) {
        this.jobs.remove(jobId);
        this.dirtyJobChunks.add(hashOf(jobId) % this.jobChunks);
      }
      for (const run of entry.runs ?? []) {
        this.runs.add(run);
        this.dirtyRunChunks.add(hashOf(run.run_id) % this.runChunks);
      }
      this.charsSinceCheckpoint += row.body.length;
    }
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
    this.dirtyJobChunks.add(hashOf(job.job_id) % this.jobChunks);
  }

  /** How far the journal ring is from wrapping over entries the checkpoint does not cover. */
  get journalRoom(): number {
    return JOURNAL_SLOTS - (this.journalSeq - this.checkpointSeq);
  }
}

/** An entry split into parts of at most ~1 MB each (runs and jobs spread over them). */
function splitEntry(entry: JournalEntry): JournalEntry[] {
  const size = JSON.stringify(entry).length;
  if (size <= MAX_ENTRY_CHARS) return [entry];
  const parts = Math.ceil(size / MAX_ENTRY_CHARS) + 1;
  const slice = <T>(list: T[] | undefined, index: number): T[] => {
    if (list === undefined || list.length === 0) return [];
    const per = Math.ceil(list.length / parts);
    return list.slice(index * per, (index + 1) * per);
  };
  // The first part carries what left (gone before changed, as the replay applies them).
  return Array.from({ length: parts }, (_, index) => ({
    ...entry,
    gone: index === 0 ? entry.gone : [],
    settled: index === 0 ? entry.settled : [],
    uncounted: index === 0 ? entry.uncounted : [],
    jobsGone: index === 0 ? entry.jobsGone : [],
    runs: slice(entry.runs, index),
    jobs: slice(entry.jobs, index),
  }));
}
