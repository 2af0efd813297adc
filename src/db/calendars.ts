// Tenant calendars: named exclusion sets jobs refer to by name (migrations/0008_calendars.sql).

import { parseJsonColumn } from "../core/common/stored-values";
import type { ExclusionRule, ExclusionSet, NamedExclusionSet } from "../core/schedules/exclusions";
import type { ShardJob } from "../shard/protocol";
import type { JobStores } from "./databases";
import { jobsUsingCalendar, markCalendarUsersUnsynced } from "./job-lookups";
import type { StoredJob } from "./jobs";

interface CalendarRow {
  tenant_id: string;
  name: string;
  description: string;
  timezone: string;
  rules_json: string;
  revision: number;
  created_at_ms: number;
  updated_at_ms: number;
  /** The schedule file that manages it (migrations/0050); null: none. */
  managed_by: string | null;
}

export interface StoredCalendar {
  tenantId: string;
  name: string;
  description: string;
  timezone: string;
  rules: ExclusionRule[];
  revision: number;
  createdAtMs: number;
  updatedAtMs: number;
  managedBy: string | null;
}

function rowToCalendar(row: CalendarRow): StoredCalendar {
  return {
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    timezone: row.timezone,
    rules: parseJsonColumn<ExclusionRule[]>(row.rules_json, []),
    revision: row.revision,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
    managedBy: row.managed_by ?? null,
  };
}

/** A tenant has few calendars (they are rule sets, not data): all of them, by name. */
export async function listCalendars(db: D1Database, tenantId: string): Promise<StoredCalendar[]> {
  const { results } = await db
    .prepare("SELECT * FROM calendars WHERE tenant_id = ? ORDER BY name LIMIT 1000")
    .bind(tenantId)
    .all<CalendarRow>();
  return results.map(rowToCalendar);
}

export async function getCalendar(
  db: D1Database,
  tenantId: string,
  name: string,
): Promise<StoredCalendar | null> {
  const row = await db
    .prepare("SELECT * FROM calendars WHERE tenant_id = ? AND name = ?")
    .bind(tenantId, name)
    .first<CalendarRow>();
  return row === null ? null : rowToCalendar(row);
}

/** The tenant's calendars as the exclusion sets job checks and previews resolve names against. */
export async function calendarSetsOf(db: D1Database, tenantId: string): Promise<Map<string, ExclusionSet>> {
  const calendars = await listCalendars(db, tenantId);
  return new Map(
    calendars.map((calendar) => [calendar.name, { timezone: calendar.timezone, rules: calendar.rules }]),
  );
}

export type CalendarBody = { description: string; timezone: string; rules: ExclusionRule[] };

/** Creates the calendar; false when the name is taken. */
export async function insertCalendar(
  db: D1Database,
  tenantId: string,
  name: string,
  body: CalendarBody,
  nowMs: number,
): Promise<StoredCalendar | null> {
  const row = await db
    .prepare(
      `INSERT INTO calendars (tenant_id, name, description, timezone, rules_json, revision, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (tenant_id, name) DO NOTHING RETURNING *`,
    )
    .bind(tenantId, name, body.description, body.timezone, JSON.stringify(body.rules), nowMs, nowMs)
    .first<CalendarRow>();
  return row === null ? null : rowToCalendar(row);
}

/**
 * Creates or replaces the calendar (its revision grows), then marks every job that uses it
 * unsynced (in each job database), so the outbox re-sends them even if the caller's own push
 * fails. Returns the calendar, whether it was new, and those jobs.
 */
export async function upsertCalendar(
  db: D1Database,
  stores: JobStores,
  tenantId: string,
  name: string,
  body: CalendarBody,
  nowMs: number,
): Promise<{ calendar: StoredCalendar; created: boolean; jobs: StoredJob[] }> {
  const row = await db
    .prepare(
      `INSERT INTO calendars (tenant_id, name, description, timezone, rules_json, revision, created_at_ms, updated_at_ms)
       VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?6)
       ON CONFLICT (tenant_id, name) DO UPDATE SET description = ?3, timezone = ?4, rules_json = ?5,
         revision = revision + 1, updated_at_ms = ?6
       RETURNING *`,
    )
    .bind(tenantId, name, body.description, body.timezone, JSON.stringify(body.rules), nowMs)
    .first<CalendarRow>();
  if (row === null) throw new Error("calendar upsert returned no row");
  const jobs = await markCalendarUsersUnsynced(stores, tenantId, name);
  return { calendar: rowToCalendar(row), created: row.revision === 1, jobs };
}

/** Marks the calendar as managed by a schedule file (`edgecron apply`); null: by none. */
export async function setCalendarManagedBy(
  db: D1Database,
  tenantId: string,
  name: string,
  managedBy: string | null,
): Promise<void> {
  await db
    .prepare("UPDATE calendars SET managed_by = ?3 WHERE tenant_id = ?1 AND name = ?2")
    .bind(tenantId, name, managedBy)
    .run();
}

/**
 * Deletes the calendar unless a job uses it; the users when one does (nothing deleted then).
 * Jobs live in other databases than calendars, so the check and the delete are two steps: a job
 * created naming the calendar in between keeps its name and fires as if it excluded nothing.
 */
export async function deleteCalendar(
  db: D1Database,
  stores: JobStores,
  tenantId: string,
  name: string,
): Promise<{ deleted: boolean; usedBy: { id: string; name: string }[] }> {
  const usedBy = await jobsUsingCalendar(stores, tenantId, name);
  if (usedBy.length > 0) return { deleted: false, usedBy };
  const result = await db
    .prepare("DELETE FROM calendars WHERE tenant_id = ?1 AND name = ?2")
    .bind(tenantId, name)
    .run();
  return { deleted: result.meta.changes > 0, usedBy: [] };
}

/**
 * The snapshots with the calendars their specs name, as D1 holds them now: what the shard
 * evaluates exclusions with (it never reads D1 on its hot path). One query per tenant involved.
 */
export async function attachCalendars(db: D1Database, jobs: readonly ShardJob[]): Promise<ShardJob[]> {
  const named = jobs.map((job) => ({ job, names: calendarNamesOf(job.specJson) }));
  const tenants = [
    ...new Set(named.filter((entry) => entry.names.length > 0).map((entry) => entry.job.tenantId)),
  ];
  if (tenants.length === 0) return [...jobs];
  const byTenant = new Map(
    await Promise.all(
      tenants.map(async (tenantId) => [tenantId, await listCalendars(db, tenantId)] as const),
    ),
  );
  return named.map(({ job, names }) => {
    if (names.length === 0) return job;
    const calendars = byTenant.get(job.tenantId) ?? [];
    const sets: NamedExclusionSet[] = [];
    let revision = 0;
    for (const name of names) {
      const calendar = calendars.find((candidate) => candidate.name === name);
      if (calendar === undefined) continue;
      sets.push({ name, timezone: calendar.timezone, rules: calendar.rules });
      revision += calendar.revision;
    }
    return { ...job, calendarsJson: JSON.stringify(sets), calendarsRevision: revision };
  });
}

function calendarNamesOf(specJson: string): string[] {
  // Most jobs name none: skip parsing their spec (a batch create pushes a thousand).
  if (!specJson.includes('"calendars":[') || specJson.includes('"calendars":[]')) return [];
  const spec = parseJsonColumn<{ calendars?: unknown }>(specJson, {});
  return Array.isArray(spec.calendars) ? spec.calendars.filter((name) => typeof name === "string") : [];
}

/**
 * The tenant's calendars when one of these specs names any (one query), else an empty map and
 * no query: what job checks and `next_fire_times` resolve names with.
 */
export async function calendarSetsFor(
  db: D1Database,
  tenantId: string,
  specs: readonly ({ calendars?: readonly string[] | undefined } | null | undefined)[],
): Promise<Map<string, ExclusionSet>> {
  // Raw request bodies come here too (checked later): anything but a non-empty array names none.
  if (!specs.some((spec) => Array.isArray(spec?.calendars) && spec.calendars.length > 0)) return new Map();
  return calendarSetsOf(db, tenantId);
}
