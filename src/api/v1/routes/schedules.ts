import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ExclusionSet } from "../../../core/exclusions";
import { scheduleElementIssues } from "../../../core/normalize";
import { calendarSetsOf } from "../../../db/calendars";
import { previewUnionTimes } from "../../../service/job-writes";
import { previewPlacedFires } from "../../../service/preview-placement";
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
    const given = [
      ...(body.calendars.length > 0 ? (["calendars"] as const) : []),
      ...(body.exclude !== null ? (["exclude"] as const) : []),
    ];
    const preview = previewUnionTimes(specs, sets, nowMs, fromMs, body.count, path, given);
    if (body.window === null && body.flexible_window === null) return c.json(preview);
    const placement = { window: body.window, flexible_window: body.flexible_window };
    const placed = previewPlacedFires(
      placement,
      body.job_id ?? "preview",
      specs,
      sets,
      nowMs,
      fromMs,
      body.count,
    );
    return c.json({ ...preview, ...placed });
  },
);

/** The body, or a 400 naming every bad field: each spec of `schedules` is checked on its own too. */
async function readPreviewBody(c: Context<AppEnv>) {
  const raw = await readJsonBody(c);
  const parsed = previewRequestSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const errors = fieldErrorsOf(parsed.error.issues, []);
  const schedules =
    typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).schedules : undefined;
  errors.push(...scheduleElementIssues(schedules, undefined, Date.now()));
  throw validationError(errors);
}

/** Calendars are per tenant: a preview naming one needs the caller's tenant (admin: Edgecron-Tenant). */
async function tenantCalendars(c: Context<AppEnv>): Promise<Map<string, ExclusionSet>> {
  // The same resolution as every tenant route (a key's tenant, or the admin's Edgecron-Tenant).
  await tenantScope(c, async () => {});
  return calendarSetsOf(c.env.DB, c.get("tenantId"));
}
