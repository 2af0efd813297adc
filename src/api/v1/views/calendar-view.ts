// Calendars as the API answers them.

import { iso } from "../../../core/common/stored-values";
import type { StoredCalendar } from "../../../service/calendars/manage-calendars";

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
