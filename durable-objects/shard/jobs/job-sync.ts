// Applying D1's job snapshots to a shard. Idempotent by version: the outbox sweep may re-send any
// snapshot any number of times, and an older version never overwrites a newer one.
import { firstFire, upcomingFires } from "../../../src/core/job-timeline";
import { jsonBytes, STATEMENT_LIMITS, splitIntoBatches } from "../../../src/core/queue-limits";
import type { ShardJob } from "../../../src/shard/protocol";
import { dropAheadRuns } from "../dispatch/ahead";
import { noteCancelledUncalled } from "../flow/uncalled-permits";
import { moveRun, pendingRunsOfJob, type RunRow } from "../runs/run-store";
import { fireDueJob, markCompleted } from "../wheel/firing";
import { applyCalendarRevision, storeCalendars } from "./calendar-revisions";
import {
  exclusionsOf,
  getJob,
  getJobs,
  type ShardJobRow,
  setFiredThrough,
  setJobTimer,
  specOf,
} from "./held-jobs";

/** Applies snapshots in order; returns the ids the shard now holds at their version (or newer). */
export function applyJobSnapshots(sql: SqlStorage, snapshots: readonly ShardJob[], nowMs: number): string[] {
  // One read for the whole push: a batch create sends hundreds of new jobs to each shard.
  const stored = getJobs(
    sql,
    snapshots.map((snapshot) => snapshot.jobId),
  );
  const seen = new Set<string>();
  const confirmed: string[] = [];
  // New jobs go in with one INSERT at the end; a job named twice in one push (rare) writes what
  // is pending first, then is re-read: its first snapshot may have just changed it.
  let pending: NewJobRow[] = [];
  for (const snapshot of snapshots) {
    if (seen.has(snapshot.jobId)) {
      insertJobRows(sql, pending);
      pending = [];
    }
    const existing = seen.has(snapshot.jobId)
      ? getJob(sql, snapshot.jobId)
      : (stored.get(snapshot.jobId) ?? null);
    seen.add(snapshot.jobId);
    if (existing === null) pending.push(newJobRow(snapshot, nowMs));
    else applyJobSnapshot(sql, snapshot, existing, nowMs);
    confirmed.push(snapshot.jobId);
  }
  insertJobRows(sql, pending);
  return confirmed;
}

/** Applies one snapshot to a job the shard holds; after it, the shard holds this version or newer. */
function applyJobSnapshot(sql: SqlStorage, snapshot: ShardJob, existing: ShardJobRow, nowMs: number): void {
  if (existing.version > snapshot.version) return;
  if (existing.version === snapshot.version) {
    applyCalendarRevision(sql, snapshot, existing, nowMs);
    return;
  }
  storeCalendars(sql, existing, snapshot);
  // A run sent ahead carries the old version and its claim would refuse it: the next tick sends
  // the instant again at the new one (or not, if the change below pauses, edits or deletes).
  dropAheadRuns(sql, existing.job_id, nowMs);
  const specJson = snapshot.specJson;
  const specChanged = existing.spec_json !== specJson;
  const previousStatus = existing.status;
  existing.version = snapshot.version;
  existing.spec_json = specJson;
  sql.exec(
    "UPDATE jobs SET version = ?, spec_json = ?, tenant_id = ? WHERE job_id = ?",
    snapshot.version,
    specJson,
    snapshot.tenantId,
    snapshot.jobId,
  );

  if (snapshot.status === "DELETED") {
    cancelPendingRuns(sql, existing.job_id, "job deleted", nowMs);
    setStatus(sql, existing, "DELETED");
    setJobTimer(sql, existing, null);
    return;
  }
  if (specChanged) {
    cancelPendingRuns(sql, existing.job_id, "job edited", nowMs);
    // An edit reschedules from now; a COMPLETED job whose new spec fires again comes back.
    const next =
      upcomingFires(specOf(existing), existing.job_id, nowMs, 1, exclusionsOf(existing))[0] ?? null;
    setJobTimer(sql, existing, next);
    setFiredThrough(sql, existing, nowMs);
    if (previousStatus === "COMPLETED" && next !== null && snapshot.status !== "PAUSED") {
      setStatus(sql, existing, "ACTIVE");
    }
  }
  if (snapshot.status === "PAUSED" && previousStatus !== "PAUSED") {
    cancelPendingRuns(sql, existing.job_id, "job paused", nowMs);
    setStatus(sql, existing, "PAUSED");
    sql.exec("UPDATE jobs SET paused_at_ms = ? WHERE job_id = ?", nowMs, existing.job_id);
  } else if (snapshot.status === "ACTIVE" && previousStatus === "PAUSED") {
    setStatus(sql, existing, "ACTIVE");
    sql.exec("UPDATE jobs SET paused_at_ms = NULL WHERE job_id = ?", existing.job_id);
    // What passed while paused is missed: the misfire policy decides, whatever the grace.
    if (!specChanged) fireDueJob(sql, existing, nowMs, "resume");
    if (existing.next_fire_ms === null) markCompleted(sql, existing);
  }
}

/** The columns of a new job, in NEW_JOB_COLUMNS order. */
type NewJobRow = [
  string,
  string,
  number,
  string,
  string,
  number,
  number | null,
  number | null,
  number | null,
  number,
  string,
  number,
];
const NEW_JOB_COLUMNS = [
  "job_id",
  "tenant_id",
  "version",
  "status",
  "spec_json",
  "created_at_ms",
  "next_scheduled_ms",
  "next_fire_ms",
  "paused_at_ms",
  "status_dirty",
  "calendars_json",
  "calendars_revision",
] as const;

function newJobRow(snapshot: ShardJob, nowMs: number): NewJobRow {
  const specJson = snapshot.specJson;
  const stored = {
    job_id: snapshot.jobId,
    version: snapshot.version,
    spec_json: specJson,
    calendars_json: snapshot.calendarsJson ?? "[]",
    calendars_revision: snapshot.calendarsRevision ?? 0,
  };
  const spec = specOf(stored);
  // A new job fires its instants from its creation on, the first one exactly as its create
  // response listed it: instants between creation and now (a late outbox delivery) are found
  // late by the next tick and go through the misfire policy.
  const next =
    snapshot.status === "ACTIVE" || snapshot.status === "PAUSED"
      ? firstFire(spec, snapshot.jobId, snapshot.createdAtMs, exclusionsOf(stored))
      : null;
  const status = snapshot.status === "ACTIVE" && next === null ? "COMPLETED" : snapshot.status;
  return [
    snapshot.jobId,
    snapshot.tenantId,
    snapshot.version,
    status,
    specJson,
    snapshot.createdAtMs,
    next?.scheduledAtMs ?? null,
    next?.fireAtMs ?? null,
    status === "PAUSED" ? nowMs : null,
    status !== snapshot.status ? 1 : 0,
    stored.calendars_json,
    stored.calendars_revision,
  ];
}

/**
 * One statement per ~1 MB of new jobs (a batch create sends hundreds per shard). One statement
 * for a whole push failed with SQLITE_TOOBIG once an outbox sweep carried many large specs, and
 * the sweep would then re-send the same group forever.
 */
function insertJobRows(sql: SqlStorage, rows: readonly NewJobRow[]): void {
  if (rows.length === 0) return;
  const values = NEW_JOB_COLUMNS.map((_, index) => `json_extract(value, '$[${index}]')`).join(", ");
  for (const group of splitIntoBatches(rows, jsonBytes, STATEMENT_LIMITS)) {
    sql.exec(
      `INSERT INTO jobs (${NEW_JOB_COLUMNS.join(", ")}) SELECT ${values} FROM json_each(?)`,
      JSON.stringify(group),
    );
  }
}

function setStatus(sql: SqlStorage, job: ShardJobRow, status: ShardJobRow["status"]): void {
  job.status = status;
  sql.exec("UPDATE jobs SET status = ? WHERE job_id = ?", status, job.job_id);
}

/** Cancels every run of the job that has not started executing; running ones finish. */
export function cancelPendingRuns(sql: SqlStorage, jobId: string, reason: string, nowMs: number): number {
  // A run queued ahead of an instant still to come is deleted, not cancelled: see ./ahead.ts.
  dropAheadRuns(sql, jobId, nowMs);
  const pending: RunRow[] = pendingRunsOfJob(sql, jobId);
  const sent: string[] = [];
  for (const run of pending) {
    if (run.state === "FAILED") continue;
    if (run.state === "ACQUIRED" || run.state === "DISPATCHED") sent.push(run.run_id);
    moveRun(sql, run, "CANCELLED", reason, nowMs, {
      due_at_ms: null,
      waiting: null,
      next_attempt_at_ms: null,
    });
  }
  noteCancelledUncalled(sql, sent);
  return pending.length;
}
