// `POST /v1/plans`: what applying a schedule file (or one page of it) would change in the tenant,
// computed against what is stored now. Every entry is checked before anything is decided: one
// answer names every bad field (400) or every name the file may not take (409).
import { EdgecronError, type FieldError } from "../../core/common/errors";
import { validationError } from "../../core/common/field-errors";
import { checkFileCalendars, checkFileJobs } from "../../core/schedule-file/items";
import type { FilePlan } from "../../core/schedule-file/plan-schema";
import type { FileRequest } from "../../core/schedule-file/request";
import { listCalendars } from "../../db/calendars";
import { type CalendarActions, planCalendars } from "./calendar-entries";
import { type JobActions, planJobs } from "./job-entries";

export interface PlannedFile {
  plan: FilePlan;
  jobs: JobActions;
  calendars: CalendarActions;
}

/** Field paths in reading order: `jobs.2.name` before `jobs.10.name`. */
function byPath(a: FieldError, b: FieldError): number {
  const left = a.path.split(".");
  const right = b.path.split(".");
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const [x = "", y = ""] = [left[index], right[index]];
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    return numeric ? Number(x) - Number(y) : x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * The plan of `request` for the tenant, or the problem that stops it: 400 `validation_failed`
 * naming every bad field (and every conflict beside them), else 409 `schedule_file_conflict`
 * naming every job or calendar the file may not take.
 */
export async function planScheduleFile(
  env: Env,
  tenantId: string,
  request: FileRequest,
  nowMs: number,
): Promise<PlannedFile> {
  const calendarItems = checkFileCalendars(request);
  const jobItems = checkFileJobs(request);
  const stored = await listCalendars(env.DB, tenantId);
  const calendars = await planCalendars(env, tenantId, request, calendarItems, stored);
  const jobs = await planJobs(env, tenantId, request, jobItems, calendars.effective, nowMs);
  const errors = [...calendarItems.errors, ...jobs.errors].sort(byPath);
  const conflicts = [...calendars.conflicts, ...jobs.conflicts].sort(byPath);
  if (errors.length > 0) {
    throw validationError(
      [...errors, ...conflicts].sort(byPath),
      `The schedule file has ${errors.length} invalid field(s); nothing was changed`,
    );
  }
  if (conflicts.length > 0) {
    throw new EdgecronError(
      "schedule_file_conflict",
      `The schedule file names ${conflicts.length} job(s) or calendar(s) it does not manage; nothing was changed`,
      { errors: conflicts },
    );
  }
  return {
    plan: {
      managed_by: request.managed_by,
      prune: request.prune,
      summary: { jobs: jobs.counts, calendars: calendars.counts },
      jobs: jobs.entries,
      calendars: calendars.entries,
      notes: [...calendars.notes, ...jobs.notes],
    },
    jobs: jobs.actions,
    calendars: calendars.actions,
  };
}
