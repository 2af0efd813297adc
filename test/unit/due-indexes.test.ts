// The shard's due indexes (durable-objects/shard/state/run-book.ts, job-book.ts) drop stale
// entries lazily. A run or job whose time comes back to a value an older entry still holds must be
// read once: CI once saw a claimed run whose lease lapsed at the very millisecond the pass ran,
// retried "now" (the same millisecond), read twice by the next pass, handed out once and then
// refused (DISPATCHED -> ACQUIRED): the pass failed and the run waited a whole lease to go out.
import { describe, expect, it } from "vitest";
import { createdRun, type Run } from "../../durable-objects/shard/records/run";
import { JobBook, type JobRecord } from "../../durable-objects/shard/state/job-book";
import { indexStateOf, RunBook } from "../../durable-objects/shard/state/run-book";

const T0 = 1_000_000;

function scheduledRun(jobId: string, dueAtMs: number): Run {
  return createdRun({
    jobId,
    tenantId: "ten_a",
    kind: "schedule",
    scheduledAtMs: dueAtMs,
    fireAtMs: dueAtMs,
    maxAttempts: 3,
    jobVersion: 1,
    state: "SCHEDULED",
    dueAtMs,
    waiting: null,
    reason: "due",
    nowMs: T0,
  });
}

/** Changes a run as the shard does (its index state read before the change). */
function change(book: RunBook, run: Run, patch: Partial<Run>): void {
  const before = indexStateOf(run);
  Object.assign(run, patch);
  book.changed(run, before);
}

const ids = (runs: readonly Run[]) => runs.map((run) => run.run_id);

describe("the run book's due index", () => {
  it("reads a run once when its due time leaves and comes back to the same millisecond", () => {
    const book = new RunBook();
    const run = scheduledRun("job_a", T0);
    book.add(run);
    // Claimed with a lease until T0 + 5 s; the lease lapses, the attempt fails (no due time),
    // and its retry is due at the lease's own millisecond.
    change(book, run, { state: "RUNNING", due_at_ms: T0 + 5_000 });
    change(book, run, { state: "FAILED", due_at_ms: null });
    change(book, run, { state: "RETRYING", due_at_ms: T0 + 5_000 });
    expect(ids(book.oldestDue(T0 + 5_000, 10))).toEqual([run.run_id]);
    expect(ids(book.tenantDue("ten_a", T0 + 5_000, 10))).toEqual([run.run_id]);
    expect(ids(book.dueRuns())).toEqual([run.run_id]);
  });

  it("reads a run once when its due time goes back to an earlier value", () => {
    const book = new RunBook();
    const run = scheduledRun("job_b", T0);
    book.add(run);
    change(book, run, { due_at_ms: T0 + 1_000 });
    change(book, run, { due_at_ms: T0 });
    expect(ids(book.oldestDue(T0 + 2_000, 10))).toEqual([run.run_id]);
  });

  it("reads a run once when its priority changes and its due time does not", () => {
    const book = new RunBook();
    const run = scheduledRun("job_c", T0);
    book.add(run);
    change(book, run, { priority: run.priority + 1 });
    change(book, run, { priority: run.priority - 1 });
    expect(ids(book.oldestDue(T0, 10))).toEqual([run.run_id]);
    expect(ids(book.tenantDue("ten_a", T0, 10))).toEqual([run.run_id]);
  });

  it("reads a run added again (the same object) once, and a removed one never", () => {
    const book = new RunBook();
    const kept = scheduledRun("job_d", T0);
    const gone = scheduledRun("job_e", T0);
    book.add(kept);
    book.add(kept);
    book.add(gone);
    book.remove(gone);
    expect(ids(book.oldestDue(T0, 10))).toEqual([kept.run_id]);
  });
});

function activeJob(jobId: string, nextFireMs: number): JobRecord {
  return {
    job_id: jobId,
    tenant_id: "ten_a",
    version: 1,
    status: "ACTIVE",
    created_at_ms: T0,
    next_scheduled_ms: nextFireMs,
    next_fire_ms: nextFireMs,
    run_count: 0,
    consecutive_failures: 0,
    paused_at_ms: null,
    pause_reason: null,
    status_dirty: 0,
    completion_implied: false,
    last_missed_alert_ms: null,
    fired_through_ms: null,
    calendars_revision: 0,
    overlap: "allow",
    priority: 0,
    ahead_fire_ms: null,
    parked_fire_ms: null,
    history_buckets: [],
  };
}

describe("the job book's timers", () => {
  it("reads a job once when its timer is filed again at the same instant", () => {
    const book = new JobBook();
    const job = activeJob("job_f", T0);
    book.put(job);
    book.fileTimer(job);
    expect(book.due(T0, 10).map((due) => due.job_id)).toEqual(["job_f"]);
    expect(book.aheadEligible(T0 - 1, T0, 10).map((due) => due.job_id)).toEqual(["job_f"]);
  });

  it("reads a job once when it pauses and resumes at the same instant", () => {
    const book = new JobBook();
    const job = activeJob("job_g", T0);
    book.put(job);
    job.status = "PAUSED";
    book.fileTimer(job);
    expect(book.due(T0, 10)).toEqual([]);
    job.status = "ACTIVE";
    book.fileTimer(job);
    expect(book.due(T0, 10).map((due) => due.job_id)).toEqual(["job_g"]);
  });

  it("reads nothing of a record put in place of another, once the new one has stopped", () => {
    const book = new JobBook();
    book.put(activeJob("job_i", T0));
    book.put({ ...activeJob("job_i", T0), status: "PAUSED" });
    expect(book.due(T0, 10)).toEqual([]);
  });

  it("forgets a removed job's timer", () => {
    const book = new JobBook();
    book.put(activeJob("job_h", T0));
    book.remove("job_h");
    expect(book.due(T0, 10)).toEqual([]);
  });
});
