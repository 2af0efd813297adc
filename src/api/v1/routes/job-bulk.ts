// POST /v1/jobs/bulk: the body as one jobs.change in bulk (src/service/jobs/change-jobs-in-bulk.ts),
// its result as 200 (done) or 202 (an operation to read at GET /v1/jobs/bulk/{id}).
import { createRoute } from "@hono/zod-openapi";
import { iso } from "../../../core/common/stored-values";
import type { BulkChange } from "../../../service/jobs/bulk-plan";
import {
  type BulkOperationView,
  changeJobsInBulk,
  readBulkOperation,
} from "../../../service/jobs/change-jobs-in-bulk";
import { readBody } from "../../http/body";
import { EdgecronError } from "../../http/problem";
import { pushOptionsOf } from "../../http/push-options";
import type { JobBulk } from "../job-bulk-schema";
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
    const change = bulkChangeOf(c.get("tenantId"), body);
    const result = await changeJobsInBulk(c.env, change, Date.now(), pushOptionsOf(c));
    if (result.finished) return c.json({ matched: result.matched, done: result.done }, 200);
    const resource = bulkOperationResource(result.operation);
    c.header("location", resource.status_url);
    return c.json(resource, 202);
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
    return c.json(bulkOperationResource(operation), 200);
  },
);

function bulkChangeOf(tenantId: string, body: JobBulk): BulkChange {
  const { filter } = body;
  return {
    tenantId,
    action: body.action,
    all: body.all === true,
    filter: {
      ...(filter.name_prefix === undefined ? {} : { namePrefix: filter.name_prefix }),
      ...(filter.status === undefined ? {} : { status: filter.status }),
      ...(filter.created_before === undefined ? {} : { createdBeforeMs: Date.parse(filter.created_before) }),
      // metadataFilterSchema checked it is an object of keys to values (its output type is unknown).
      ...(filter.metadata === undefined ? {} : { metadata: filter.metadata as Record<string, unknown> }),
    },
  };
}

/** The operation as the API shows it, with where to read it again. */
function bulkOperationResource(operation: BulkOperationView) {
  return {
    id: operation.id,
    action: operation.action,
    matched: operation.matched,
    done: operation.done,
    state: operation.state,
    error: operation.error,
    created_at: iso(operation.createdAtMs),
    updated_at: iso(operation.updatedAtMs),
    status_url: `/v1/jobs/bulk/${operation.id}`,
  };
}
