// The shard's jobs in memory: each job's head (tenant, version, status) and the timing state only
// the shard owns (next instant, run count, failure streak, what it has fired through), with the
// timing wheel itself: the active jobs' next fire times in time order. A job's definition (its
// spec and calendars) stays in the `jobs` table and is read when needed (../jobs/job-specs.ts).
// Durable through the journal like the runs (./shard-state.ts).
import { LazyHeap } from "../../../src/core/common/min-heap";
import type { JobStatus } from "../../../src/shard/protocol";

export interface JobRecord {
  job_id: string;
  tenant_id: string;
  version: number;
  status: JobStatus;
  created_at_ms: number;
  /** The schedule's next instant, and when it fires (instant + deterministic jitter). */
  next_scheduled_ms: number | null;
  next_fire_ms: number | null;
  run_count: number;
  consecutive_failures: number;
  paused_at_ms: number | null;
  /** Set when the shard itself paused the job (pause_after_failures). */
  pause_reason: string | null;
  /** 1: a status the shard decided must reach D1; 2: a completion waiting for its last run. */
  status_dirty: number;
  /** D1 reads the job COMPLETED once its spec's end passed (src/core/jobs/job-end.ts): no write needed. */
  completion_implied: boolean;
  last_missed_alert_ms: number | null;
  /** The last scheduled instant handled; null: none yet (the schedule runs from creation). */
  fired_through_ms: number | null;
  calendars_revision: number;
  /** From the spec (cached here: the wheel reads them on every pass without the spec). */
  overlap: string;
  priority: number;
  /**
   * The fire time of this job's run created ahead of its instant (../dispatch/ahead.ts), until
   * that time: a job has one instant ahead at a time, the next one goes once it has fired.
   */
  ahead_fire_ms: number | null;
  /** While its tenant is suspended: the timer kept aside (next_fire_ms is null meanwhile). */
  parked_fire_ms: number | null;
  /** The history buckets with settled runs of this job, newest last (../store/history-pages.ts). */
  history_buckets: number[];
}

interface TimerEntry {
  job: JobRecord;
  fireAtMs: number;
}

/** Buckets remembered per job: enough for the runs a history page asks for, and then some. */
export const MAX_HISTORY_BUCKETS = 64;

export class JobBook {
  private readonly byId = new Map<string, JobRecord>();
  /** Active jobs with overlap "allow": their next instant may go ahead of it (../dispatch/ahead.ts). */
  private readonly allowTimers: LazyHeap<TimerEntry>;
  /** Every other active job with a timer. */
  private readonly otherTimers: LazyHeap<TimerEntry>;
  /** Jobs with a status to write to D1 (status_dirty 1) or waiting to (2). */
  private readonly statusDirty = new Set<JobRecord>();
  /**
   * Each job's latest timer entry: only it is current. Filing a timer again at the same instant
   * (a resume, a touch) would otherwise leave two current entries, and a pass would read the job twice.
   */
  private readonly currentTimer = new Map<string, TimerEntry>();
  private readonly isCurrent = (entry: TimerEntry) =>
    entry.job.status === "ACTIVE" &&
    entry.job.next_fire_ms === entry.fireAtMs &&
    this.currentTimer.get(entry.job.job_id) === entry;

  constructor() {
    const before = (a: TimerEntry, b: TimerEntry) => a.fireAtMs < b.fireAtMs;
    this.allowTimers = new LazyHeap(
      before,
      (entry) => this.isCurrent(entry) && entry.job.overlap === "allow",
    );
    this.otherTimers = new LazyHeap(
      before,
      (entry) => this.isCurrent(entry) && entry.job.overlap !== "allow",
    );
  }

  get size(): number {
    return this.byId.size;
  }

  get(jobId: string): JobRecord | undefined {
    return this.byId.get(jobId);
  }

  all(): IterableIterator<JobRecord> {
    return this.byId.values();
  }

  /** Adds or replaces a job; its timer is filed. */
  put(job: JobRecord): void {
    this.byId.set(job.job_id, job);
    // A record put in place of another leaves none of the old one's entries current.
    this.currentTimer.delete(job.job_id);
    this.fileTimer(job);
  }

  remove(jobId: string): void {
    const job = this.byId.get(jobId);
    if (job !== undefined) this.statusDirty.delete(job);
    this.byId.delete(jobId);
    this.currentTimer.delete(jobId);
  }

  /** Jobs whose status the shard decided and D1 has not been told (../write-behind.ts). */
  dirtyStatuses(): ReadonlySet<JobRecord> {
    return this.statusDirty;
  }

  /** After a job's timer or status changed: its timer is filed again (the old entry goes stale). */
  fileTimer(job: JobRecord): void {
    if (job.status_dirty !== 0) this.statusDirty.add(job);
    else this.statusDirty.delete(job);
    // A job that stops (or has no next instant) keeps its entry: it is stale by the checks above
    // until it comes back, and current again if it comes back to the same instant.
    if (job.status !== "ACTIVE" || job.next_fire_ms === null) return;
    const entry = { job, fireAtMs: job.next_fire_ms };
    this.currentTimer.set(job.job_id, entry);
    if (job.overlap === "allow") this.allowTimers.push(entry);
    else this.otherTimers.push(entry);
  }

  /** Up to `limit` active jobs whose timer is at or before `untilMs`, earliest first. */
  due(untilMs: number, limit: number): JobRecord[] {
    const take = (entry: TimerEntry) => entry.fireAtMs <= untilMs;
    const merged = [...this.allowTimers.top(limit, take), ...this.otherTimers.top(limit, take)]
      .sort((a, b) => a.fireAtMs - b.fireAtMs)
      .slice(0, limit);
    return merged.map((entry) => entry.job);
  }

  /**
   * Up to `limit` active jobs with overlap "allow" whose timer is in (`afterMs`, `untilMs`]: the
   * instants that may be sent ahead, earliest first.
   */
  aheadEligible(afterMs: number, untilMs: number, limit: number): JobRecord[] {
    const inLead = this.allowTimers.top(Number.MAX_SAFE_INTEGER, (entry) => entry.fireAtMs <= untilMs);
    const jobs: JobRecord[] = [];
    for (const { job, fireAtMs } of inLead) {
      if (fireAtMs <= afterMs || !aheadFree(job, afterMs)) continue;
      jobs.push(job);
      if (jobs.length >= limit) break;
    }
    return jobs;
  }

  /** The earliest timer of an active job (null: none). */
  earliestTimerMs(): number | null {
    const allow = this.allowTimers.peek()?.fireAtMs ?? null;
    const other = this.otherTimers.peek()?.fireAtMs ?? null;
    return allow === null ? other : other === null ? allow : Math.min(allow, other);
  }

  /**
   * When the next instant should go ahead (`leadMs` before it, once the job's previous run sent
   * ahead has fired), from the first `scan` jobs that may: null when none may.
   */
  nextAheadMs(leadMs: number, scan = 64): number | null {
    let earliest: number | null = null;
    for (const { job, fireAtMs } of this.allowTimers.top(scan, () => true)) {
      const atMs = Math.max(fireAtMs - leadMs, job.ahead_fire_ms ?? Number.NEGATIVE_INFINITY);
      if (atMs < fireAtMs && (earliest === null || atMs < earliest)) earliest = atMs;
    }
    return earliest;
  }

  /** Active jobs whose timer is before `beforeMs` (the watchdog's overdue scan), earliest first. */
  overdue(beforeMs: number, limit: number): JobRecord[] {
    return this.due(beforeMs - 1, limit);
  }
}

/** Whether the job has no run sent ahead still waiting for its instant at `nowMs`. */
export function aheadFree(job: JobRecord, nowMs: number): boolean {
  return job.ahead_fire_ms === null || job.ahead_fire_ms <= nowMs;
}

/** Notes that a run of `job` settled into history bucket `bucketMs` (newest kept, in order). */
export function noteHistoryBucket(job: JobRecord, bucketMs: number): boolean {
  const buckets = job.history_buckets;
  if (buckets.includes(bucketMs)) return false;
  buckets.push(bucketMs);
  if (buckets.length > 1 && (buckets[buckets.length - 2] as number) > bucketMs) buckets.sort((a, b) => a - b);
  if (buckets.length > MAX_HISTORY_BUCKETS) buckets.splice(0, buckets.length - MAX_HISTORY_BUCKETS);
  return true;
}
