import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ExclusionSet } from "../../../core/exclusions";
import { scheduleElementIssues } from "../../../core/normalize";
import { missingScheduleIssues, scheduleChoiceIssues } from "../../../core/schedule-set-check";
import { calendarSetsOf } from "../../../db/calendars";
import { schedulePreview } from "../../../service/schedule-preview";
import type { AppEnv } from "../../http/app-env";
import { tenantScope } from "../../http/auth";
import { readJsonBody } from "../../http/body";
import { fieldErrorsOf, validationError } from "../../http/problem";
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
    const body = await readPreviewBody(c);
    const calendars = body.calendars.length === 0 ? new Map() : await tenantCalendars(c);
    return c.json(schedulePreview(body, calendars, Date.now()));
  },
);

/** The body, or a 400 naming every bad field: each spec of `schedules` is checked on its own too. */
async function readPreviewBody(c: Context<AppEnv>) {
  const raw = await readJsonBody(c);
  const parsed = previewRequestSchema.safeParse(raw);
  const missing = missingScheduleIssues(raw);
  if (parsed.success && missing.length === 0) return parsed.data;
  if (parsed.success) throw validationError(missing);
  const errors = fieldErrorsOf(parsed.error.issues, []);
  const schedules =
    typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).schedules : undefined;
  // The same refusals as a create's for what parsed alone (see checkJobInput).
  errors.push(
    ...missing,
    ...scheduleChoiceIssues(raw),
    ...scheduleElementIssues(schedules, undefined, Date.now()),
  );
  throw validationError(errors);
}

/** Calendars are per tenant: a preview naming one needs the caller's tenant (admin: Edgecron-Tenant). */
async function tenantCalendars(c: Context<AppEnv>): Promise<Map<string, ExclusionSet>> {
  // The same resolution as every tenant route (a key's tenant, or the admin's Edgecron-Tenant).
  await tenantScope(c, async () => {});
  return calendarSetsOf(c.env.DB, c.get("tenantId"));
}
