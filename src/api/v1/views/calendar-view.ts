// Calendars as the API answers them, and what an edit sets off: the jobs that name the calendar
// go to their shards again, which re-derive their timers.

import { iso } from "../../../core/stored-values";
import type { StoredCalendar } from "../../../db/calendars";

/** The calendar resource of docs/API.md. */
export function calendarResource(calendar: StoredCalendar) {
  return {
    name: calendar.name,
    description: calendar.description,
    timezone: calendar.timezone,
    rules: calendar.rules,
    revision: calendar.revision,
    managed_by: calendar.managedBy,
    created_at: iso(calendar.createdAtMs),
    updated_at: iso(calendar.updatedAtMs),
  };
}

/** 409 detail naming the jobs that keep a calendar from being deleted. */
export function inUseDetail(name: string, usedBy: readonly { id: string; name: string }[]): string {
  const listed = usedBy.map((job) => `${job.id} (${job.name})`).join(", ");
  const more = usedBy.length >= 100 ? " and possibly more" : "";
  return `Calendar ${name} is named by ${usedBy.length} job(s): ${listed}${more}; remove it from their \`calendars\` first`;
}
