// Applying D1's job snapshots to a shard. Idempotent by version: the outbox sweep may re-send any
// snapshot any number of times, and an older version never overwrites a newer one.
import { upcomingFires } from "../../src/core/job-timeline";
import type { ShardJob } from "../../src/shard/protocol";
import { fireDueJob, markCompleted } from "./firing";
import { getJob, type ShardJobRow, setJobTimer, specOf } from "./job-store";
import { moveRun, pendingRunsOfJob, type RunRow } from "./run-store";

/** Applies one snapshot; returns true once the shard holds this version (or a newer one). */
export function applyJobSnapshot(sql: SqlStorage, snapshot: ShardJob, nowMs: number): boolean {
  const existing = getJob(sql, snapshot.jobId);
  if (existing && existing.version >= snapshot.version) return true;
  const specJson = JSON.stringify(snapshot.spec);
  if (!existing) {
    insertJob(sql, snapshot, specJson, nowMs);
    return true;
  }
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
    return true;
  }
  if (specChanged) {
    cancelPendingRuns(sql, existing.job_id, "job edited", nowMs);
    // An edit reschedules from now; a COMPLETED job whose new spec fires again comes back.
    const next = upcomingFires(specOf(existing), existing.job_id, nowMs, 1)[0] ?? null;
    setJobTimer(sql, existing, next);
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
  return true;
}

function insertJob(sql: SqlStorage, snapshot: ShardJob, specJson: string, nowMs: number): void {
  const spec = snapshot.spec;
  // A new job fires its instants from its creation on: instants between creation and now (a late
  // outbox delivery) are found late by the next tick and go through the misfire policy.
  let afterMs = snapshot.createdAtMs - 1;
  if (spec.schedule.type === "once" && spec.schedule.at !== undefined) {
    afterMs = Math.min(afterMs, Date.parse(spec.schedule.at) - 1);
  }
  const next =
    snapshot.status === "ACTIVE" || snapshot.status === "PAUSED"
      ? (upcomingFires(spec, snapshot.jobId, afterMs, 1)[0] ?? null)
      : null;
  const status = snapshot.status === "ACTIVE" && next === null ? "COMPLETED" : snapshot.status;
  sql.exec(
    `INSERT INTO jobs (job_id, tenant_id, version, status, spec_json, created_at_ms, next_scheduled_ms,
       next_fire_ms, paused_at_ms, status_dirty)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
  );
}

function setStatus(sql: SqlStorage, job: ShardJobRow, status: ShardJobRow["status"]): void {
  job.status = status;
  sql.exec("UPDATE jobs SET status = ? WHERE job_id = ?", status, job.job_id);
}

/** Cancels every run of the job that has not started executing; running ones finish. */
export function cancelPendingRuns(sql: SqlStorage, jobId: string, reason: string, nowMs: number): number {
  const pending: RunRow[] = pendingRunsOfJob(sql, jobId);
  for (const run of pending) {
    if (run.state === "FAILED") continue;
    moveRun(sql, run, "CANCELLED", reason, nowMs, {
      due_at_ms: null,
      waiting: null,
      next_attempt_at_ms: null,
    });
  }
  return pending.length;
}
