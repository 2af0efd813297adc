// QStash schedules (/v2/schedules): each a cron job found by its schedule id. A create upserts
// by that id: the live job gets a new version, else a new job is admitted and stored in the job
// database the id hashes to (so a concurrent create of the same id meets it at the unique index).
import { EdgecronError } from "../../core/common/errors";
import type { JobSpec } from "../../core/jobs/job-spec";
import { jobStores } from "../../db/databases";
import type { StoredJob } from "../../db/jobs";
import {
  findScheduleJob,
  isScheduleIdTaken,
  listScheduleJobs,
  scheduleDatabaseIndex,
} from "../../db/qstash-schedules";
import { newStoredJob, saveJobVersion } from "../job-writes";
import { storeNewJobs } from "../jobs/store-new-jobs";

/**
 * The spec an upsert stores over `existing`: the request's, keeping the policies QStash has no
 * header for and a user may have set through /v1 (misfire, overlap, jitter, the DST rules), so
 * re-running the same `schedules.create` does not undo them.
 */
export function upsertedSpec(existing: JobSpec, requested: JobSpec): JobSpec {
  const dst = existing.schedule?.type === "cron" ? existing.schedule.dst : undefined;
  const schedule =
    requested.schedule?.type === "cron" && dst !== undefined
      ? { ...requested.schedule, dst }
      : requested.schedule;
  return {
    ...requested,
    ...(schedule === undefined ? {} : { schedule }),
    misfire: existing.misfire,
    overlap: existing.overlap,
    jitter: existing.jitter,
  };
}

/** The tenant's schedules, newest first, at most `limit`. */
export function listSchedules(env: Env, tenantId: string, limit: number): Promise<StoredJob[]> {
  return listScheduleJobs(jobStores(env), tenantId, limit);
}

/** The schedule's job, or null. */
export function readSchedule(env: Env, tenantId: string, scheduleId: string): Promise<StoredJob | null> {
  return findScheduleJob(jobStores(env), tenantId, scheduleId);
}

/**
 * Creates the schedule's job, or writes a new version of the live one (its status kept). A new
 * job is admitted (tenant limits) first and placed in the database its schedule id hashes to.
 */
export async function upsertSchedule(
  env: Env,
  tenantId: string,
  scheduleId: string,
  spec: JobSpec,
  nowMs: number,
): Promise<void> {
  const stores = jobStores(env);
  const existing = await findScheduleJob(stores, tenantId, scheduleId);
  if (existing !== null) {
    await saveJobVersion(env, existing, { spec: upsertedSpec(existing.spec, spec) }, nowMs);
    return;
  }
  const databaseIndex = scheduleDatabaseIndex(stores, tenantId, scheduleId);
  const job = newStoredJob(env, tenantId, spec, nowMs, null, databaseIndex);
  const stored = await storeNewJobs(env, tenantId, [job], nowMs, {
    // A concurrent create of the same id won the index: this request updates that job instead.
    onInsertRefused: async (error) =>
      isScheduleIdTaken(error) ? await findScheduleJob(stores, tenantId, scheduleId) : null,
  });
  if (!stored.stored) {
    const winner = stored.duplicate;
    await saveJobVersion(env, winner, { spec: upsertedSpec(winner.spec, spec) }, nowMs);
  }
}

/**
 * Pauses or resumes the schedule (already there changes nothing); false when there is no such
 * schedule. A finished schedule cannot change (409 job_not_active).
 */
export async function setScheduleStatus(
  env: Env,
  tenantId: string,
  scheduleId: string,
  to: "ACTIVE" | "PAUSED",
  nowMs: number,
): Promise<boolean> {
  const job = await readSchedule(env, tenantId, scheduleId);
  if (job === null) return false;
  if (job.status !== to) {
    if (job.status !== "ACTIVE" && job.status !== "PAUSED") {
      throw new EdgecronError("job_not_active", `schedule ${scheduleId} is ${job.status.toLowerCase()}`);
    }
    await saveJobVersion(env, job, { status: to }, nowMs);
  }
  return true;
}
