// Schedules as code: `POST /v1/plans` says what applying a schedule file would change, and
// `POST /v1/applies` makes those changes (src/service/schedule-files/; docs/SCHEDULES-AS-CODE.md).
// The CLI (`edgecron plan`, `edgecron apply`), the typed client and a CI job all go through these.
import { createRoute } from "@hono/zod-openapi";
import { fileApplySchema, filePlanSchema } from "../../../core/schedule-file/plan-schema";
import { fileRequestDocSchema, fileRequestSchema } from "../../../core/schedule-file/request";
import { applyScheduleFile } from "../../../service/schedule-files/apply-file";
import { planScheduleFile } from "../../../service/schedule-files/plan-file";
import { tenantScope } from "../../http/auth";
import { readBody } from "../../http/body";
import { pushOptionsOf } from "../../http/push-options";
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

export const scheduleFiles = apiRouter();

const requestSchema = fileRequestDocSchema.meta({
  id: "ScheduleFileRequest",
  example: {
    managed_by: "schedules.yaml",
    prune: true,
    calendars: [
      { name: "uk-holidays", timezone: "Europe/London", rules: [{ type: "date", date: "2026-12-25" }] },
    ],
    jobs: [
      {
        name: "nightly-report",
        schedule: { type: "cron", expr: "0 3 * * *", timezone: "Europe/London" },
        calendars: ["uk-holidays"],
        target: { url: "https://example.com/hooks/report" },
      },
    ],
  },
});
const planSchema = filePlanSchema.meta({ id: "ScheduleFilePlan" });
const applySchema = fileApplySchema.meta({ id: "ScheduleFileApply" });
const FILE_ERRORS = [...TENANT_ERRORS, ...BODY_ERRORS, "schedule_file_conflict"] as const;

defineRoute(
  scheduleFiles,
  createRoute({
    method: "post",
    path: "/plans",
    operationId: "planScheduleFile",
    summary: "What applying a schedule file (or a page of it) would create, change and, with prune, delete",
    tags: ["schedule-files"],
    middleware: [tenantScope] as const,
    request: { headers: tenantHeaders, body: jsonBody(requestSchema) },
    responses: {
      200: json(
        planSchema,
        "The plan, computed against the tenant's jobs and calendars now; nothing is changed",
      ),
      ...problems(...FILE_ERRORS),
    },
  }),
  async (c) => {
    const request = await readBody(c, fileRequestSchema);
    const planned = await planScheduleFile(c.env, c.get("tenantId"), request, Date.now());
    return c.json(planned.plan, 200);
  },
);

defineRoute(
  scheduleFiles,
  createRoute({
    method: "post",
    path: "/applies",
    operationId: "applyScheduleFile",
    summary: "Make the tenant what a schedule file (or a page of it) says: the plan, computed now, then made",
    tags: ["schedule-files"],
    middleware: [tenantScope] as const,
    request: { headers: tenantHeaders, body: jsonBody(requestSchema) },
    responses: {
      200: json(applySchema, "What was done (an unchanged file: nothing, and no version moves)"),
      ...problems(
        ...FILE_ERRORS,
        "tenant_limit_exceeded",
        "tenant_suspended",
        "version_conflict",
        "calendar_in_use",
      ),
    },
  }),
  async (c) => {
    const request = await readBody(c, fileRequestSchema);
    const applied = await applyScheduleFile(c.env, c.get("tenantId"), request, Date.now(), pushOptionsOf(c));
    return c.json(applied, 200);
  },
);
