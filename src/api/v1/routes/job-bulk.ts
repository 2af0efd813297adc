// POST /v1/jobs/bulk: see ../job-bulk.ts.
import { createRoute } from "@hono/zod-openapi";
import { readBody } from "../../http/body";
import { pushOptionsOf } from "../../http/push-options";
import { applyBulk, checkBulkScope } from "../bulk-control";
import { jobBulkResultSchema, jobBulkSchema } from "../openapi/components";
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

export const jobBulk = apiRouter();

defineRoute(
  jobBulk,
  createRoute({
    method: "post",
    path: "/",
    operationId: "bulkJobs",
    summary: "Pause, resume or delete the caller's jobs that match a filter (at most 5,000 per call)",
    tags: ["jobs"],
    request: { headers: tenantHeaders, body: jsonBody(jobBulkSchema) },
    responses: {
      200: json(jobBulkResultSchema, "How many jobs matched, and how many are now in the action's state"),
      ...problems(...TENANT_ERRORS, ...BODY_ERRORS),
    },
  }),
  async (c) => {
    const body = await readBody(c, jobBulkSchema);
    checkBulkScope(body);
    return c.json(await applyBulk(c.env, c.get("tenantId"), body, Date.now(), pushOptionsOf(c)));
  },
);
