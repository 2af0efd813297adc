// A calendar edit re-sends a job at the version the shard holds, with its calendars at a higher
// revision: the shard keeps the new calendars and re-derives the job's timer with the one shared
// entry point for that (../wheel/recompute.ts, also used when the tz database changes). Which
// instants are excluded is decided again when each is due, with the calendars held then.
import type { ShardJob } from "../../../src/shard/protocol";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { readJobDefinition, updateJobDefinition } from "../store/job-definitions";
import { recomputeNextFire } from "../wheel/recompute";

/**
 * A snapshot of the version the shard holds, re-sent after a calendar edit: newer calendars (a
 * higher revision) replace the old ones and the timer is re-derived; anything else is a repeat.
 */
export function applyCalendarRevision(
  state: ShardState,
  snapshot: ShardJob,
  job: JobRecord,
  nowMs: number,
): void {
  const revision = snapshot.calendarsRevision ?? 0;
  if (revision <= job.calendars_revision) return;
  const definition = readJobDefinition(state.sql, job.job_id);
  if (definition !== null) {
    updateJobDefinition(state.sql, {
      ...definition,
      calendars_json: snapshot.calendarsJson ?? "[]",
      calendars_revision: revision,
    });
  }
  job.calendars_revision = revision;
  state.touchJob(job);
  recomputeNextFire(state, job, nowMs);
}
