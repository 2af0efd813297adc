// A tenant's calendars: created once by name, listed, read with the jobs that name them, and
// deleted only while no job names them (deleting one a job names would silently run it on the
// holidays). Replacing one is ./replace-calendar.ts; job checks and previews resolve names with
// tenantCalendarSets.
import { EdgecronError } from "../../core/common/errors";
import type { ExclusionSet } from "../../core/schedules/exclusions";
import {
  type CalendarBody,
  calendarSetsOf,
  deleteCalendar as deleteStoredCalendar,
  getCalendar,
  insertCalendar,
  listCalendars,
  type StoredCalendar,
} from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { jobsUsingCalendar } from "../../db/job-lookups";

export type { CalendarBody, StoredCalendar };

/** A job as a calendar lists it. */
export interface CalendarUser {
  id: string;
  name: string;
}

function calendarNotFound(name: string): EdgecronError {
  return new EdgecronError("calendar_not_found", `No calendar ${name} in this tenant`);
}

/** 409 `calendar_exists` when the tenant has one of this name (PUT replaces it). */
export async function createCalendar(
  env: Env,
  tenantId: string,
  name: string,
  body: CalendarBody,
  nowMs: number,
): Promise<StoredCalendar> {
  const created = await insertCalendar(env.DB, tenantId, name, body, nowMs);
  if (created === null) {
    throw new EdgecronError(
      "calendar_exists",
      `Calendar ${name} exists: replace it with PUT /v1/calendars/${name}`,
    );
  }
  return created;
}

/** Every calendar of the tenant, by name (at most 1000). */
export function listTenantCalendars(env: Env, tenantId: string): Promise<StoredCalendar[]> {
  return listCalendars(env.DB, tenantId);
}

/** The calendar and the jobs that name it (at most 100); 404 when the tenant has none of this name. */
export async function readCalendar(
  env: Env,
  tenantId: string,
  name: string,
): Promise<{ calendar: StoredCalendar; usedBy: CalendarUser[] }> {
  const calendar = await getCalendar(env.DB, tenantId, name);
  if (calendar === null) throw calendarNotFound(name);
  return { calendar, usedBy: await jobsUsingCalendar(jobStores(env), tenantId, name) };
}

/** The deleted calendar; 404 when there is none, 409 `calendar_in_use` while a job names it. */
export async function deleteCalendar(env: Env, tenantId: string, name: string): Promise<StoredCalendar> {
  const calendar = await getCalendar(env.DB, tenantId, name);
  if (calendar === null) throw calendarNotFound(name);
  const result = await deleteStoredCalendar(env.DB, jobStores(env), tenantId, name);
  if (!result.deleted) throw new EdgecronError("calendar_in_use", inUseDetail(name, result.usedBy));
  return calendar;
}

/** The tenant's calendars as the exclusion sets job checks and previews resolve names against. */
export function tenantCalendarSets(env: Env, tenantId: string): Promise<Map<string, ExclusionSet>> {
  return calendarSetsOf(env.DB, tenantId);
}

/** 409 detail naming the jobs that keep a calendar from being deleted. */
function inUseDetail(name: string, usedBy: readonly CalendarUser[]): string {
  const listed = usedBy.map((job) => `${job.id} (${job.name})`).join(", ");
  const more = usedBy.length >= 100 ? " and possibly more" : "";
  return `Calendar ${name} is named by ${usedBy.length} job(s): ${listed}${more}; remove it from their \`calendars\` first`;
}
