import { type Context, Hono } from "hono";
import { z } from "zod";
import { exclusionSetSchema } from "../../core/exclusions";
import { jobCalendarsSchema, scheduleSchema, schedulesSchema } from "../../core/job-spec";
import { calendarSetsOf } from "../../db/calendars";
import { readBody } from "../body";
import { previewUnionTimes } from "../job-service";
import { tenantScope } from "../middleware/auth";
import { validationError } from "../problem";
import type { AppEnv } from "../types";

export const MAX_PREVIEW_COUNT = 1000;

export const previewRequestSchema = z
  .strictObject({
    schedule: scheduleSchema.optional(),
    schedules: schedulesSchema.optional(),
    calendars: jobCalendarsSchema.default([]),
    exclude: exclusionSetSchema.nullable().default(null),
    count: z.number().int().min(1).max(MAX_PREVIEW_COUNT).default(5),
    from: z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" }).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.schedule === undefined) === (body.schedules === undefined)) {
      const path = body.schedule === undefined ? "schedule" : "schedules";
      ctx.addIssue({
        code: "custom",
        path: [path],
        message: "give exactly one of `schedule` or `schedules`",
      });
    }
  });

export const schedules = new Hono<AppEnv>();

/**
 * The next `count` instants strictly after `from` (default now) of the union of the specs,
 * without those the calendars (the tenant's, by name) and `exclude` cover; `excluded` lists those
 * met on the way. An interval without anchor is anchored at `from`; a delay counts from now.
 */
schedules.post("/preview", async (c) => {
  const body = await readBody(c, previewRequestSchema);
  const known = body.calendars.length === 0 ? new Map() : await tenantCalendars(c);
  const unknown = body.calendars.flatMap((name, index) =>
    known.has(name) ? [] : [{ path: `calendars.${index}`, message: `no calendar named ${name}` }],
  );
  if (unknown.length > 0) throw validationError(unknown);
  const sets = body.calendars.flatMap((name) => known.get(name) ?? []);
  if (body.exclude !== null) sets.push(body.exclude);
  const nowMs = Date.now();
  const fromMs = body.from === undefined ? nowMs : Date.parse(body.from);
  const specs = body.schedules ?? (body.schedule === undefined ? [] : [body.schedule]);
  const path = body.schedules === undefined ? "schedule" : "schedules";
  return c.json(previewUnionTimes(specs, sets, nowMs, fromMs, body.count, path));
});

/** Calendars are per tenant: a preview naming one needs the caller's tenant (admin: Edgecron-Tenant). */
async function tenantCalendars(c: Context<AppEnv>) {
  // The same resolution as every tenant route (a key's tenant, or the admin's Edgecron-Tenant).
  await tenantScope(c, async () => {});
  return calendarSetsOf(c.env.DB, c.get("tenantId"));
}
