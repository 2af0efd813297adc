// Applying D1's job snapshots to a shard. Idempotent by version: the outbox sweep may re-send any
// snapshot any number of times, and an older version never overwrites a newer one.
import { DEFAULT_JOB_PRIORITY, type JobSpec } from "../../../src/core/jobs/job-spec";
import { firstFire, upcomingFires } from "../../../src/core/jobs/job-timeline";
import type { ShardJob } from "../../../src/shard/protocol";
import { fireDueJob, markCompleted } from "../instants/firing";
import { exclusionsOfDefinition, jobExclusions, rememberDefinition } from "../jobs/job-specs";
import { cancelPendingRuns, handBackAheadRuns } from "../runs/cancel-runs";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import {
  insertJobDefinitions,
  type JobDefinition,
  readJobDefinition,
  updateJobDefinition,
} from "../store/job-definitions";
import { applyCalendarRevision } from "./calendar-revisions";

/** Applies snapshots in order; returns the ids the shard now holds at their version (or newer). */
export function applyJobSnapshots(
  state: ShardState,
  snapshots: readonly ShardJob[],
  nowMs: number,
): string[] {
  const confirmed: string[] = [];
  // New jobs' definitions go in together at the end (a batch create sends hundreds per shard).
  const fresh: JobDefinition[] = [];
  const freshIds = new Set<string>();
  for (const snapshot of snapshots) {
    const existing = state.jobs.get(snapshot.jobId);
    if (existing === undefined) {
      const definition = definitionOf(snapshot);
      fresh.push(definition);
      freshIds.add(snapshot.jobId);
      state.putJob(newJobRecord(snapshot, rememberDefinition(definition), nowMs));
    } else {
      if (freshIds.has(snapshot.jobId)) {
        // Named twice in one push: its first snapshot is not stored yet, so write it now.
        insertJobDefinitions(state.sql, fresh.splice(0));
        freshIds.clear();
      }
      applyJobSnapshot(state, snapshot, existing, nowMs);
    }
    confirmed.push(snapshot.jobId);
  }
  insertJobDefinitions(state.sql, fresh);
  return confirmed;
}

function definitionOf(snapshot: ShardJob): JobDefinition {
  return {
    job_id: snapshot.jobId,
    tenant_id: snapshot.tenantId,
    version: snapshot.version,
    status: snapshot.status,
    spec_json: snapshot.specJson,
    created_at_ms: snapshot.createdAtMs,
    calendars_json: snapshot.calendarsJson ?? "[]",
    calendars_revision: snapshot.calendarsRevision ?? 0,
  };
}

/** What the wheel keeps of a spec in the job's record (read on every pass, without the spec). */
export function specFields(spec: JobSpec): Pick<JobRecord, "overlap" | "priority"> {
  return { overlap: spec.overlap, priority: spec.priority ?? DEFAULT_JOB_PRIORITY };
}

/**
 * A new job fires its instants from its creation on, the first one exactly as its create response
 * listed it: instants between creation and now (a late outbox delivery) are found late by the
 * next tick and go through the misfire policy.
 */
function newJobRecord(snapshot: ShardJob, spec: JobSpec, nowMs: number): JobRecord {
  const exclusions = exclusionsOfDefinition(spec, snapshot.calendarsJson ?? "[]");
  const next =
    snapshot.status === "ACTIVE" || snapshot.status === "PAUSED"
      ? firstFire(spec, snapshot.jobId, snapshot.createdAtMs, exclusions)
      : null;
  const status = snapshot.status === "ACTIVE" && next === null ? "COMPLETED" : snapshot.status;
  return {
    job_id: snapshot.jobId,
    tenant_id: snapshot.tenantId,
    version: snapshot.version,
    status,
    created_at_ms: snapshot.createdAtMs,
    next_scheduled_ms: next?.scheduledAtMs ?? null,
    next_fire_ms: next?.fireAtMs ?? null,
    run_count: 0,
    consecutive_failures: 0,
    paused_at_ms: status === "PAUSED" ? nowMs : null,
    pause_reason: null,
    status_dirty: status !== snapshot.status && snapshot.completionImplied !== true ? 1 : 0,
    completion_implied: snapshot.completionImplied === true,
    last_missed_alert_ms: null,
    fired_through_ms: null,
    calendars_revision: snapshot.calendarsRevision ?? 0,
    ...specFields(spec),
    ahead_fire_ms: null,
    parked_fire_ms: null,
    history_buckets: [],
  };
}

/** Applies one snapshot to a job the shard holds; after it, the shard holds this version or newer. */
function applyJobSnapshot(state: ShardState, snapshot: ShardJob, existing: JobRecord, nowMs: number): void {
  if (existing.version > snapshot.version) return;
  if (existing.version === snapshot.version) {
    applyCalendarRevision(state, snapshot, existing, nowMs);
    return;
  }
  const previousSpecJson = readJobDefinition(state.sql, existing.job_id)?.spec_json;
  const definition = definitionOf(snapshot);
  const spec = rememberDefinition(definition);
  updateJobDefinition(state.sql, definition);
  const specChanged = previousSpecJson !== snapshot.specJson;
  const previousStatus = existing.status;
  existing.version = snapshot.version;
  existing.tenant_id = snapshot.tenantId;
  existing.calendars_revision = definition.calendars_revision;
  existing.completion_implied = snapshot.completionImplied === true;
  Object.assign(existing, specFields(spec));
  state.touchJob(existing);

  // An instant sent ahead at the old version goes again at this one (claims of it would be refused).
  // (A pause or a delete cancels them below; the shard's own COMPLETED of a one-shot sent ahead is
  // no change of status.)
  if (!specChanged && snapshot.status !== "PAUSED" && snapshot.status !== "DELETED") {
    handBackAheadRuns(state, existing.job_id, snapshot.version, nowMs);
  }
  if (snapshot.status === "DELETED") {
    cancelPendingRuns(state, existing.job_id, "job deleted", nowMs);
    setTimer(state, existing, null);
    existing.status = "DELETED";
    state.touchJob(existing);
    return;
  }
  if (specChanged) {
    cancelPendingRuns(state, existing.job_id, "job edited", nowMs);
    existing.ahead_fire_ms = null;
    // An edit reschedules from now; a COMPLETED job whose new spec fires again comes back.
    const next = upcomingFires(spec, existing.job_id, nowMs, 1, jobExclusions(state, existing))[0] ?? null;
    setTimer(state, existing, next);
    existing.fired_through_ms = nowMs;
    if (previousStatus === "COMPLETED" && next !== null && snapshot.status !== "PAUSED")
      existing.status = "ACTIVE";
  }
  if (snapshot.status === "PAUSED" && previousStatus !== "PAUSED") {
    // A run sent ahead hands its instant back: a resume before it runs it at its instant.
    cancelPendingRuns(state, existing.job_id, "job paused", nowMs, { rewindTimer: !specChanged });
    existing.status = "PAUSED";
    existing.paused_at_ms = nowMs;
    state.touchJob(existing);
  } else if (snapshot.status === "ACTIVE" && previousStatus === "PAUSED") {
    existing.status = "ACTIVE";
    existing.paused_at_ms = null;
    existing.pause_reason = null;
    state.touchJob(existing);
    // What passed while paused went unnoticed: the misfire policy and its grace decide, as after an outage.
    if (!specChanged) fireDueJob(state, existing, nowMs);
    if (existing.next_fire_ms === null) markCompleted(state, existing, nowMs);
  }
}

function setTimer(
  state: ShardState,
  job: JobRecord,
  next: { scheduledAtMs: number; fireAtMs: number } | null,
): void {
  job.next_scheduled_ms = next?.scheduledAtMs ?? null;
  job.next_fire_ms = next?.fireAtMs ?? null;
  state.touchJob(job);
}
