// POST /v1/jobs/bulk: see ../bulk-control.ts.
import { createRoute } from "@hono/zod-openapi";
import { readBody } from "../../http/body";
import { EdgecronError } from "../../http/problem";
import { pushOptionsOf } from "../../http/push-options";
import { checkBulkScope } from "../bulk-control";
import { readBulkOperation, startBulk } from "../bulk-control-async";
import { jobBulkOperationSchema, jobBulkResultSchema, jobBulkSchema } from "../openapi/components";
import {
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  idParams,
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
    summary:
      "Pause, resume or delete the caller's jobs that match a filter (at most 20,000 per call; over 5,000 to change, 202 and progress to read)",
    tags: ["jobs"],
    request: { headers: tenantHeaders, body: jsonBody(jobBulkSchema) },
    responses: {
      200: json(jobBulkResultSchema, "How many jobs matched, and how many are now in the action's state"),
      202: json(
        jobBulkOperationSchema,
        "More than 5,000 jobs to change: the call goes on after this answer; GET `status_url` for its progress",
      ),
      ...problems(...TENANT_ERRORS, ...BODY_ERRORS),
    },
  }),
  async (c) => {
    const body = await readBody(c, jobBulkSchema);
    checkBulkScope(body);
    const answer = await startBulk(c.env, c.get("tenantId"), body, Date.now(), pushOptionsOf(c));
    if (answer.status === 200) return c.json(answer.body, 200);
    c.header("location", answer.body.status_url);
    return c.json(answer.body, 202);
  },
);

defineRoute(
  jobBulk,
  createRoute({
    method: "get",
    path: "/{id}",
    operationId: "getBulkOperation",
    summary: "Read the progress of a bulk call answered 202",
    tags: ["jobs"],
    request: { headers: tenantHeaders, params: idParams("bop_5f0c2d8e9a1b4c7d8e9f0a1b2c3d4e5f") },
    responses: {
      200: json(jobBulkOperationSchema, "The operation's progress"),
      ...problems(...TENANT_ERRORS, "bulk_operation_not_found"),
    },
  }),
  async (c) => {
    const id = c.req.param("id");
    const operation = await readBulkOperation(c.env, c.get("tenantId"), id, Date.now());
    if (operation === null) throw new EdgecronError("bulk_operation_not_found", `No bulk operation ${id}`);
    return c.json(operation, 200);
  },
);
