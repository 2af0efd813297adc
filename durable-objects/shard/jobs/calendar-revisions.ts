// A calendar edit re-sends a job at the version the shard holds, with its calendars at a higher
// revision: the shard keeps the new calendars and re-derives the job's timer with the one shared
// entry point for that (recompute.ts, also used when the tz database changes). Which instants are
// excluded is decided again when each is due, with the calendars held then.
import type { ShardJob } from "../../../src/shard/protocol";
import { recomputeNextFire } from "../wheel/recompute";
import type { ShardJobRow } from "./held-jobs";

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
export function applyCalendarRevision(
  sql: SqlStorage,
  snapshot: ShardJob,
  job: ShardJobRow,
  nowMs: number,
): void {
  if ((snapshot.calendarsRevision ?? 0) <= job.calendars_revision) return;
  storeCalendars(sql, job, snapshot);
  recomputeNextFire(sql, job, nowMs);
}
