// The checkpoint's chunks of the job book and the run book (../store/snapshot.ts): ids are spread
// over chunks by hash, so a checkpoint rewrites only the chunks whose members changed since the
// last one; the chunk count doubles as a book grows.
import { deleteSnapshotSlots, JOB_SLOTS, RUN_SLOTS, writeSnapshotSlot } from "../store/snapshot";
import type { JobBook } from "./job-book";
import type { RunBook } from "./run-book";

/** Members per checkpoint chunk, about (the chunk count doubles as a book grows). */
const JOBS_PER_CHUNK = 512;
const RUNS_PER_CHUNK = 256;

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

export class SnapshotChunks {
  jobChunks = 1;
  runChunks = 1;
  private readonly dirtyRunChunks = new Set<number>();
  private readonly dirtyJobChunks = new Set<number>();

  /** The chunk of this run changed: the next checkpoint rewrites it. */
  runChanged(runId: string): void {
    this.dirtyRunChunks.add(hashOf(runId) % this.runChunks);
  }

  /** The chunk of this job changed: the next checkpoint rewrites it. */
  jobChanged(jobId: string): void {
    this.dirtyJobChunks.add(hashOf(jobId) % this.jobChunks);
  }

  /** Writes the chunks that changed; every chunk of a book whose chunk count changed. */
  write(sql: SqlStorage, jobs: JobBook, runs: RunBook): void {
    const jobChunks = chunkCountFor(jobs.size, JOBS_PER_CHUNK);
    const runChunks = chunkCountFor(runs.size, RUNS_PER_CHUNK);
    if (jobChunks !== this.jobChunks) {
      deleteSnapshotSlots(sql, JOB_SLOTS, RUN_SLOTS);
      this.jobChunks = jobChunks;
      for (let chunk = 0; chunk < jobChunks; chunk++) this.dirtyJobChunks.add(chunk);
    }
    if (runChunks !== this.runChunks) {
      deleteSnapshotSlots(sql, RUN_SLOTS, RUN_SLOTS * 2);
      this.runChunks = runChunks;
      for (let chunk = 0; chunk < runChunks; chunk++) this.dirtyRunChunks.add(chunk);
    }
    this.writeChunks(sql, this.dirtyJobChunks, this.jobChunks, JOB_SLOTS, jobs.all(), (job) => job.job_id);
    this.writeChunks(sql, this.dirtyRunChunks, this.runChunks, RUN_SLOTS, runs.all(), (run) => run.run_id);
  }

  private writeChunks<T>(
    sql: SqlStorage,
    dirty: Set<number>,
    chunks: number,
    firstSlot: number,
    members: Iterable<T>,
    idOf: (member: T) => string,
  ): void {
    if (dirty.size === 0) return;
    const contents = new Map<number, T[]>([...dirty].map((chunk) => [chunk, []]));
    for (const member of members) contents.get(hashOf(idOf(member)) % chunks)?.push(member);
    for (const [chunk, list] of contents) writeSnapshotSlot(sql, firstSlot + chunk, JSON.stringify(list));
    dirty.clear();
  }
}
