// Re-deriving a job's timer when what its instants depend on changed without a new job version:
// its calendars were edited. The instant the timer points at and everything after it are
// recomputed; instants already handled (fired or recorded SKIPPED) stay as they are.
import { upcomingFires } from "../../src/core/job-timeline";
import type { ShardJob } from "../../src/shard/protocol";
import { exclusionsOf, type ShardJobRow, setJobTimer, specOf } from "./job-store";

/** Keeps the calendars a snapshot carries on the job's row (a new version may name others). */
export function storeCalendars(sql: SqlStorage, job: ShardJobRow, snapshot: ShardJob): void {
  job.calendars_json = snapshot.calendarsJson ?? "[]";
  job.calendars_revision = snapshot.calendarsRevision ?? 0;
  sql.exec(
    "UPDATE jobs SET calendars_json = ?, calendars_revision = ? WHERE job_id = ?",
    job.calendars_json,
    job.calendars_revision,
    job.job_id,
  );
}

/**
 * A snapshot of the version the shard holds, re-sent after a calendar edit: newer calendars (a
 * higher revision) replace the old ones and the timer is re-derived; anything else is a repeat.
 */
export function applyCalendarRevision(sql: SqlStorage, snapshot: ShardJob, job: ShardJobRow): void {
  if ((snapshot.calendarsRevision ?? 0) <= job.calendars_revision) return;
  storeCalendars(sql, job, snapshot);
  rederiveTimer(sql, job);
}

/**
 * Recomputes the job's pending timer for its current specs and exclusions: the first instant
 * after the last one handled, so nothing fires twice and no instant is missed. A job without a
 * pending instant (COMPLETED, or never armed) is left alone. Shared entry point for anything
 * that changes what a job's instants depend on without a new job version.
 */
export function rederiveTimer(sql: SqlStorage, job: ShardJobRow): void {
  if (job.next_scheduled_ms === null || (job.status !== "ACTIVE" && job.status !== "PAUSED")) return;
  // The timer's instant is the next of the specs whether excluded or not (excluded ones are
  // recorded, not jumped over), so recomputing from just before it finds it again, with its
  // fire time (jitter) for the new exclusions; the tick decides exclusion again when it is due.
  const next =
    upcomingFires(specOf(job), job.job_id, job.next_scheduled_ms - 1, 1, exclusionsOf(job))[0] ?? null;
  setJobTimer(sql, job, next);
}
