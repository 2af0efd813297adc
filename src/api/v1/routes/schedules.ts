import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ExclusionSet } from "../../../core/schedules/exclusions";
import { tenantCalendarSets } from "../../../service/calendars/manage-calendars";
import { checkPreviewInput, schedulePreview } from "../../../service/schedule-preview";
import type { AppEnv } from "../../http/app-env";
import { tenantScope } from "../../http/auth";
import { readJsonBody } from "../../http/body";
import { previewRequestSchema, previewResultSchema } from "../openapi/components";
import {
  AUTH_ERRORS,
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  json,
  jsonBody,
  problems,
} from "../openapi/define";

export const schedules = apiRouter();

/**
 * The next `count` instants strictly after `from` (default now) of the union of the specs,
 * without those the calendars (the tenant's, by name) and `exclude` cover; `excluded` lists those
 * met on the way. An interval without anchor is anchored at `from`; a delay counts from now.
 * With `window` or `flexible_window`, `fire_times` are where the runs fire (`fires` pairs each
 * with its instant) and `skipped` the instants the window skips.
 */
defineRoute(
  schedules,
  createRoute({
    method: "post",
    path: "/preview",
    operationId: "previewSchedule",
    summary: "The next fire times of a schedule, without creating anything",
    tags: ["schedules"],
    request: { body: jsonBody(previewRequestSchema) },
    responses: {
      200: json(previewResultSchema, "The next `count` instants after `from`"),
      ...problems(...AUTH_ERRORS, ...BODY_ERRORS, "tenant_required", "tenant_not_found"),
    },
  }),
  async (c) => {
    const raw = await readJsonBody(c);
    const named = (raw as { calendars?: unknown } | null)?.calendars;
    const calendars = Array.isArray(named) && named.length > 0 ? await tenantCalendars(c) : new Map();
    const nowMs = Date.now();
    return c.json(schedulePreview(checkPreviewInput(raw, calendars, nowMs), calendars, nowMs));
  },
);

/** Calendars are per tenant: a preview naming one needs the caller's tenant (admin: Edgecron-Tenant). */
async function tenantCalendars(c: Context<AppEnv>): Promise<Map<string, ExclusionSet>> {
  // The same resolution as every tenant route (a key's tenant, or the admin's Edgecron-Tenant).
  await tenantScope(c, async () => {});
  return tenantCalendarSets(c.env, c.get("tenantId"));
}
