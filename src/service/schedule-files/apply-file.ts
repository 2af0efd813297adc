// `POST /v1/applies`: the plan of a schedule file (or one page of it), computed now, then made, in
// the order that keeps every step valid: calendars the jobs will name, then job creates, edits,
// pauses and resumes, then deletes, then the calendars no job names any more. Every write is one
// the API's own routes make (the batch create, the edit, the delete, the calendar PUT and DELETE),
// so admission, limits and pushes to shards hold as there. Nothing is written before the whole
// request is checked; a failure half-way leaves a state the next apply converges from (it plans
// against what is stored, by name), and an unchanged file writes nothing.
import { EdgecronError } from "../../core/common/errors";
import type { FileApply } from "../../core/schedule-file/plan-schema";
import type { FileRequest } from "../../core/schedule-file/request";
import { deleteCalendar, setCalendarManagedBy, upsertCalendar } from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { findStoredJob, insertStoredJobs } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { admitJobCreates } from "../admission";
import { deleteJobAtOnce, pushControlAction, saveControlAction } from "../control-push";
import { databaseForCreate, newStoredJob, type PushOptions, syncJobs, writeJobVersion } from "../job-writes";
import type { CalendarActions } from "./calendar-entries";
import type { JobActions } from "./job-entries";
import { type PlannedFile, planScheduleFile } from "./plan-file";

/** D1 writes in flight at once for one request's edits and deletes. */
const WRITES_IN_FLIGHT = 8;

async function eachInTurn<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += WRITES_IN_FLIGHT) {
    results.push(...(await Promise.all(items.slice(start, start + WRITES_IN_FLIGHT).map(work))));
  }
  return results;
}

/** Plans the request as `POST /v1/plans` does, then makes the plan; answers what it did. */
export async function applyScheduleFile(
  env: Env,
  tenantId: string,
  request: FileRequest,
  nowMs: number,
  options: PushOptions = {},
): Promise<FileApply> {
  const planned: PlannedFile = await planScheduleFile(env, tenantId, request, nowMs);
  // The tenant's limits refuse the creates before anything is written, calendars included.
  await admitJobCreates(env, tenantId, planned.jobs.creates.length, nowMs);
  await writeCalendars(env, tenantId, planned.calendars, request.managed_by);
  const created = await createJobs(env, tenantId, planned.jobs, nowMs, options);
  await changeJobs(env, planned.jobs, nowMs, options);
  await deleteJobs(env, tenantId, planned.jobs.deletes, nowMs, options);
  await deleteCalendars(env, tenantId, planned.calendars);
  const jobs = planned.plan.jobs.map((entry) =>
    entry.action === "create" ? { ...entry, id: created.get(entry.index) ?? "" } : entry,
  );
  return { ...planned.plan, jobs, applied: true };
}

async function writeCalendars(env: Env, tenantId: string, actions: CalendarActions, managedBy: string) {
  for (const { name, body } of actions.writes) {
    const written = await upsertCalendar(env.DB, jobStores(env), tenantId, name, body, Date.now());
    await setCalendarManagedBy(env.DB, tenantId, name, managedBy);
    // As PUT /v1/calendars/{name}: the jobs that name it re-derive their timers on their shards.
    await syncJobs(env, written.jobs);
  }
}

/** As POST /v1/jobs/batch (admitted before the first write): inserted in one database, pushed in one call. */
async function createJobs(
  env: Env,
  tenantId: string,
  actions: JobActions,
  nowMs: number,
  options: PushOptions,
): Promise<Map<number, string>> {
  if (actions.creates.length === 0) return new Map();
  const databaseIndex = databaseForCreate(env, tenantId, null);
  const jobs = actions.creates.map(({ spec, paused }): StoredJob => {
    const job = newStoredJob(env, tenantId, spec, nowMs, null, databaseIndex);
    return paused ? { ...job, status: "PAUSED" } : job;
  });
  await insertStoredJobs(jobStores(env), jobs);
  await syncJobs(env, jobs, options);
  return new Map(actions.creates.map((create, position) => [create.index, jobs[position]?.id ?? ""]));
}

/** As PATCH /v1/jobs/{id} (and pause or resume): one new version each, pushed together. */
async function changeJobs(env: Env, actions: JobActions, nowMs: number, options: PushOptions) {
  if (actions.updates.length === 0) return;
  const written = await eachInTurn(actions.updates, ({ job, spec, status }) =>
    writeJobVersion(
      env,
      job,
      { ...(spec === null ? {} : { spec }), ...(status === null ? {} : { status }) },
      nowMs,
    ),
  );
  await pushControlAction(env, written, "edit", options);
}

/** As DELETE /v1/jobs/{id}. */
async function deleteJobs(
  env: Env,
  tenantId: string,
  jobs: readonly StoredJob[],
  nowMs: number,
  options: PushOptions,
) {
  await eachInTurn(jobs, async (job) => {
    if ((await deleteJobAtOnce(env, tenantId, job.id, nowMs, options)) !== null) return;
    // Not a live row of its home database: already deleted, or still in the legacy table.
    const current = await findStoredJob(jobStores(env), tenantId, job.id);
    if (current !== null && current.status !== "DELETED") {
      await saveControlAction(env, current, { status: "DELETED" }, nowMs, "stop", options);
    }
  });
}

async function deleteCalendars(env: Env, tenantId: string, actions: CalendarActions) {
  for (const name of actions.deletes) {
    const result = await deleteCalendar(env.DB, jobStores(env), tenantId, name);
    if (!result.deleted && result.usedBy.length > 0) {
      const listed = result.usedBy.map((job) => `${job.id} (${job.name})`).join(", ");
      throw new EdgecronError(
        "calendar_in_use",
        `Calendar ${name} is still named by ${listed}: apply every page of the file before its calendars' prune`,
      );
    }
  }
}
