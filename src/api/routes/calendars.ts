import { Hono } from "hono";
import { calendarCreateSchema, calendarNameSchema, calendarReplaceSchema } from "../../core/exclusions";
import {
  deleteCalendar,
  getCalendar,
  insertCalendar,
  jobsUsingCalendar,
  listCalendars,
  upsertCalendar,
} from "../../db/calendars";
import { parseWith, readBody } from "../body";
import { calendarResource, inUseDetail } from "../calendar-view";
import { pushAndMarkSynced } from "../job-service";
import { tenantScope } from "../middleware/auth";
import { ApiError } from "../problem";
import type { AppEnv } from "../types";

export const calendars = new Hono<AppEnv>();

calendars.use("*", tenantScope);

function nameParam(value: string): string {
  return parseWith(calendarNameSchema, value, ["name"]);
}

function notFound(name: string): ApiError {
  return new ApiError(404, "calendar_not_found", `No calendar ${name} in this tenant`);
}

calendars.post("/", async (c) => {
  const body = await readBody(c, calendarCreateSchema);
  const created = await insertCalendar(c.env.DB, c.get("tenantId"), body.name, body, Date.now());
  if (created === null) {
    throw new ApiError(
      409,
      "calendar_exists",
      `Calendar ${body.name} exists: replace it with PUT /v1/calendars/${body.name}`,
    );
  }
  c.header("Location", `/v1/calendars/${created.name}`);
  return c.json(calendarResource(created), 201);
});

calendars.get("/", async (c) => {
  const all = await listCalendars(c.env.DB, c.get("tenantId"));
  return c.json({ data: all.map(calendarResource) });
});

calendars.get("/:name", async (c) => {
  const name = nameParam(c.req.param("name"));
  const calendar = await getCalendar(c.env.DB, c.get("tenantId"), name);
  if (calendar === null) throw notFound(name);
  const jobs = await jobsUsingCalendar(c.env.DB, c.get("tenantId"), name);
  return c.json({ ...calendarResource(calendar), jobs });
});

/**
 * Creates or replaces the calendar. The jobs that name it are marked unsynced in the same D1
 * batch, then pushed: their shards re-derive the timers (the outbox re-sends any push that fails).
 */
calendars.put("/:name", async (c) => {
  const name = nameParam(c.req.param("name"));
  const body = await readBody(c, calendarReplaceSchema);
  const result = await upsertCalendar(c.env.DB, c.get("tenantId"), name, body, Date.now());
  await pushAndMarkSynced(c.env, result.jobs);
  return c.json(calendarResource(result.calendar), result.created ? 201 : 200);
});

/** Refused while a job names the calendar: deleting it would silently run the holidays. */
calendars.delete("/:name", async (c) => {
  const name = nameParam(c.req.param("name"));
  const calendar = await getCalendar(c.env.DB, c.get("tenantId"), name);
  if (calendar === null) throw notFound(name);
  const result = await deleteCalendar(c.env.DB, c.get("tenantId"), name);
  if (!result.deleted) {
    throw new ApiError(409, "calendar_in_use", inUseDetail(name, result.usedBy));
  }
  return c.json(calendarResource(calendar));
});
