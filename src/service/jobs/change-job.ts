// jobs.change for one job: an edit (the door merges its patch into a whole body first), a delete,
// a pause or a resume. Each writes the next version and pushes it as a control action (its 2xx
// means the shard knows); a repeated pause, resume or delete re-sends an unconfirmed version.
import { EdgecronError, type FieldError } from "../../core/common/errors";
import { validationError } from "../../core/common/field-errors";
import type { ExclusionSet } from "../../core/schedules/exclusions";
import { calendarSetsFor } from "../../db/calendars";
import type { StoredJob } from "../../db/jobs";
import { deleteJobAtOnce, pushControlAction, saveControlAction } from "../control-push";
import type { PushOptions } from "../job-writes";
import { findTenantJob } from "./find-job";
import { checkJobFor } from "./job-check";

export interface EditJobInput {
  /** The job as it is, the whole body it becomes (the patch already merged). */
  job: StoredJob;
  body: Record<string, unknown>;
  /** The body names a schedule: a one-shot instant already past is refused. */
  rejectPastOnce: boolean;
  /** The version the caller expects to replace (null: last write wins), and what was wrong with it. */
  expected: { version: number | null; errors: FieldError[] };
  nowMs: number;
}

/** Throws 400 naming every bad field (the version's and the body's together), 409 on a stale version. */
export async function editJob(
  env: Env,
  { job, body, rejectPastOnce, expected, nowMs }: EditJobInput,
  options: PushOptions = {},
): Promise<{ job: StoredJob; calendars: ReadonlyMap<string, ExclusionSet> }> {
  if (job.status === "DELETED") throw new EdgecronError("job_deleted", `Job ${job.id} is deleted`);
  const calendars = await calendarSetsFor(env.DB, job.tenantId, [body as { calendars?: string[] }]);
  const check = checkJobFor(env, job.tenantId, body, nowMs, { rejectPastOnce, calendars });
  const errors = [...expected.errors, ...(check.ok ? [] : check.errors)];
  if (errors.length > 0 || !check.ok) throw validationError(errors);
  if (expected.version !== null && expected.version !== job.version) {
    throw new EdgecronError(
      "version_conflict",
      `Job ${job.id} is at version ${job.version}, not ${expected.version}`,
    );
  }
  const saved = await saveControlAction(env, job, { spec: check.spec }, nowMs, "edit", options);
  return { job: saved, calendars };
}

/** The job deleted (its history stays readable); deleting a deleted job answers it as it is. */
export async function deleteJob(
  env: Env,
  tenantId: string,
  jobId: string,
  nowMs: number,
  options: PushOptions = {},
): Promise<StoredJob> {
  // A live job, the common case, is marked in one statement that returns it; anything else
  // (unknown, already deleted) is read and answered below.
  const deletedAtOnce = await deleteJobAtOnce(env, tenantId, jobId, nowMs, options);
  if (deletedAtOnce !== null) return deletedAtOnce;
  const job = await findTenantJob(env, tenantId, jobId);
  if (job.status === "DELETED") return resent(env, job, options);
  return saveControlAction(env, job, { status: "DELETED" }, nowMs, "stop", options);
}

/**
 * Pause (ACTIVE to PAUSED) or resume (PAUSED to ACTIVE): idempotent (already there answers the
 * job as it is), refused from any other status.
 */
export async function moveJobStatus(
  env: Env,
  job: StoredJob,
  move: { from: "ACTIVE" | "PAUSED"; to: "ACTIVE" | "PAUSED" },
  nowMs: number,
  options: PushOptions = {},
): Promise<StoredJob> {
  if (job.status === move.to) return resent(env, job, options);
  if (job.status !== move.from) throw jobNotActive(job);
  return saveControlAction(env, job, { status: move.to }, nowMs, "stop", options);
}

export function jobNotActive(job: StoredJob): EdgecronError {
  return new EdgecronError("job_not_active", `Job ${job.id} is ${job.status}`);
}

/**
 * A repeated pause, resume or delete changes nothing in D1, but the first one's push may never
 * have reached the shard (it failed, or the client gave up and cancelled it under load): re-send
 * the unconfirmed version, so repeating the request is how a caller makes sure it took effect.
 */
async function resent(env: Env, job: StoredJob, options: PushOptions): Promise<StoredJob> {
  if (job.syncedVersion < job.version) await pushControlAction(env, [job], "stop", options);
  return job;
}
