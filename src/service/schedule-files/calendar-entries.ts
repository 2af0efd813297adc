// The calendars of a schedule file's plan: which to create, change, adopt or (with prune) delete,
// and the calendar names the file's jobs may use once it is applied.
import type { FieldError } from "../../core/common/errors";
import { joinPath } from "../../core/common/field-errors";
import { diffJson } from "../../core/schedule-file/diff";
import type { CheckedItems, FileCalendarItem } from "../../core/schedule-file/items";
import { matchCalendar } from "../../core/schedule-file/plan";
import type { CalendarPlanEntry, PlanCounts, PlanNote } from "../../core/schedule-file/plan-schema";
import type { FileRequest } from "../../core/schedule-file/request";
import type { ExclusionSet } from "../../core/schedules/exclusions";
import type { CalendarBody, StoredCalendar } from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { otherStoredJobsNamingCalendar } from "../../db/schedule-file-jobs";

export interface CalendarActions {
  /** Created or replaced, then marked as the file's. */
  writes: { name: string; body: CalendarBody }[];
  /** Deleted once every job page is applied (no job of the file names them any more). */
  deletes: string[];
}

export interface CalendarPlan {
  entries: CalendarPlanEntry[];
  counts: PlanCounts;
  notes: PlanNote[];
  conflicts: FieldError[];
  actions: CalendarActions;
  /** Every calendar a job may name after the apply: the file's, and the tenant's others. */
  effective: Map<string, ExclusionSet>;
}

export const emptyCounts = (): PlanCounts => ({ create: 0, update: 0, adopt: 0, delete: 0, unchanged: 0 });

/** What apply does to the file's calendars, against the tenant's calendars as stored now. */
export async function planCalendars(
  env: Env,
  tenantId: string,
  request: FileRequest,
  checked: CheckedItems<FileCalendarItem>,
  stored: readonly StoredCalendar[],
): Promise<CalendarPlan> {
  const label = request.managed_by;
  const fileNames = new Set(checked.items.map((item) => item.name));
  const dropped = stored.filter((calendar) => calendar.managedBy === label && !fileNames.has(calendar.name));
  const effective = new Map<string, ExclusionSet>();
  for (const calendar of stored) {
    const goes = request.prune && dropped.includes(calendar);
    if (!goes) effective.set(calendar.name, { timezone: calendar.timezone, rules: calendar.rules });
  }
  for (const item of checked.items)
    effective.set(item.name, { timezone: item.body.timezone, rules: item.body.rules });
  const plan: CalendarPlan = {
    entries: [],
    counts: emptyCounts(),
    notes: [],
    conflicts: [],
    actions: { writes: [], deletes: [] },
    effective,
  };
  if (!request.scope.calendars) return plan;
  const storedByName = new Map(stored.map((calendar) => [calendar.name, calendar]));
  for (const item of checked.items) planOne(plan, item, storedByName.get(item.name), request);
  for (const calendar of dropped) await planDrop(env, tenantId, plan, calendar, request);
  return plan;
}

function planOne(
  plan: CalendarPlan,
  item: FileCalendarItem,
  existing: StoredCalendar | undefined,
  request: FileRequest,
): void {
  const match = matchCalendar(existing, request.managed_by, request.adopt);
  const { index, name, body } = item;
  if (match.kind === "conflict") {
    plan.conflicts.push({ path: joinPath(["calendars", index, "name"]), message: match.message });
    return;
  }
  if (match.kind === "new") {
    plan.entries.push({ action: "create", index, name });
    plan.counts.create++;
    plan.actions.writes.push({ name, body });
    return;
  }
  const { description, timezone, rules } = match.existing;
  const changes = diffJson({ description, timezone, rules }, body);
  if (match.kind === "adopt") {
    changes.unshift({ path: "managed_by", before: match.existing.managedBy, after: request.managed_by });
  }
  if (changes.length === 0) {
    plan.counts.unchanged++;
    return;
  }
  plan.entries.push({ action: match.kind === "adopt" ? "adopt" : "update", index, name, changes });
  plan.counts[match.kind === "adopt" ? "adopt" : "update"]++;
  plan.actions.writes.push({ name, body });
}

/** A calendar the file manages and no longer holds: deleted with prune, unless others use it. */
async function planDrop(
  env: Env,
  tenantId: string,
  plan: CalendarPlan,
  calendar: StoredCalendar,
  request: FileRequest,
): Promise<void> {
  const label = JSON.stringify(request.managed_by);
  if (!request.prune) {
    plan.notes.push({
      name: calendar.name,
      message: `calendar managed by ${label} and not in the file: --prune deletes it`,
    });
    return;
  }
  const users = await otherStoredJobsNamingCalendar(
    jobStores(env),
    tenantId,
    calendar.name,
    request.managed_by,
  );
  if (users.length > 0) {
    const listed = users.map((job) => `${job.id} (${job.name})`).join(", ");
    plan.conflicts.push({
      path: "calendars",
      message: `calendar ${calendar.name}, which the file no longer holds, is named by jobs it does not manage: ${listed}; remove it from them, or keep it in the file`,
    });
    return;
  }
  plan.entries.push({ action: "delete", name: calendar.name });
  plan.counts.delete++;
  plan.actions.deletes.push(calendar.name);
}
