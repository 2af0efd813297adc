import { createRoute } from "@hono/zod-openapi";
import { calendarNameSchema } from "../../../core/schedules/exclusions";
import {
  createCalendar,
  deleteCalendar,
  listTenantCalendars,
  readCalendar,
} from "../../../service/calendars/manage-calendars";
import { replaceCalendar } from "../../../service/calendars/replace-calendar";
import { tenantScope } from "../../http/auth";
import { parseWith, readBody } from "../../http/body";
import {
  calendarCreateSchema,
  calendarDetailSchema,
  calendarListSchema,
  calendarParams,
  calendarReplaceSchema,
  calendarSchema,
} from "../openapi/components";
import {
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  json,
  jsonBody,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";
import { calendarResource } from "../views/calendar-view";

export const calendars = apiRouter();

calendars.use("*", tenantScope);

function nameParam(value: string): string {
  return parseWith(calendarNameSchema, value, ["name"]);
}

defineRoute(
  calendars,
  createRoute({
    method: "post",
    path: "/",
    operationId: "createCalendar",
    summary: "Create a calendar: exclusion rules (dates, ranges, weekdays) in a time zone",
    tags: ["calendars"],
    request: { headers: tenantHeaders, body: jsonBody(calendarCreateSchema) },
    responses: {
      201: json(calendarSchema, "The calendar (Location: its URL)"),
      ...problems(...TENANT_ERRORS, ...BODY_ERRORS, "calendar_exists"),
    },
  }),
  async (c) => {
    const body = await readBody(c, calendarCreateSchema);
    const created = await createCalendar(c.env, c.get("tenantId"), body.name, body, Date.now());
    c.header("Location", `/v1/calendars/${created.name}`);
    return c.json(calendarResource(created), 201);
  },
);

defineRoute(
  calendars,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listCalendars",
    summary: "The tenant's calendars, by name",
    tags: ["calendars"],
    request: { headers: tenantHeaders },
    responses: {
      200: json(calendarListSchema, "Every calendar (at most 1000)"),
      ...problems(...TENANT_ERRORS),
    },
  }),
  async (c) => {
    const all = await listTenantCalendars(c.env, c.get("tenantId"));
    return c.json({ data: all.map(calendarResource) });
  },
);

defineRoute(
  calendars,
  createRoute({
    method: "get",
    path: "/{name}",
    operationId: "getCalendar",
    summary: "A calendar and the jobs that name it",
    tags: ["calendars"],
    request: { params: calendarParams, headers: tenantHeaders },
    responses: {
      200: json(calendarDetailSchema, "The calendar, with `jobs`"),
      ...problems(...TENANT_ERRORS, "validation_failed", "calendar_not_found"),
    },
  }),
  async (c) => {
    const name = nameParam(c.req.param("name"));
    const { calendar, usedBy } = await readCalendar(c.env, c.get("tenantId"), name);
    return c.json({ ...calendarResource(calendar), jobs: usedBy });
  },
);

/**
 * Creates or replaces the calendar. The jobs that name it are marked unsynced in the same D1
 * batch, then pushed: their shards re-derive the timers (the outbox re-sends any push that fails).
 */
defineRoute(
  calendars,
  createRoute({
    method: "put",
    path: "/{name}",
    operationId: "putCalendar",
    summary: "Create or replace a calendar; the jobs that name it are re-derived on their shards",
    tags: ["calendars"],
    request: { params: calendarParams, headers: tenantHeaders, body: jsonBody(calendarReplaceSchema) },
    responses: {
      200: json(calendarSchema, "The calendar as stored (revision 1: it was created)"),
      ...problems(...TENANT_ERRORS, ...BODY_ERRORS),
    },
  }),
  async (c) => {
    const name = nameParam(c.req.param("name"));
    const body = await readBody(c, calendarReplaceSchema);
    const calendar = await replaceCalendar(c.env, c.get("tenantId"), name, body, Date.now());
    return c.json(calendarResource(calendar));
  },
);

/** Refused while a job names the calendar: deleting it would silently run on the holidays. */
defineRoute(
  calendars,
  createRoute({
    method: "delete",
    path: "/{name}",
    operationId: "deleteCalendar",
    summary: "Delete a calendar no job names",
    tags: ["calendars"],
    request: { params: calendarParams, headers: tenantHeaders },
    responses: {
      200: json(calendarSchema, "The deleted calendar"),
      ...problems(...TENANT_ERRORS, "validation_failed", "calendar_not_found", "calendar_in_use"),
    },
  }),
  async (c) => {
    const name = nameParam(c.req.param("name"));
    return c.json(calendarResource(await deleteCalendar(c.env, c.get("tenantId"), name)));
  },
);
