import { createRoute } from "@hono/zod-openapi";
import { createJob } from "../../../service/jobs/create-job";
import { calendarsOfJobs, listTenantJobs } from "../../../service/jobs/read-jobs";
import { tenantScope } from "../../http/auth";
import { readJsonBody } from "../../http/body";
import { decodeCursor, encodeCursor, pageOf } from "../../http/cursor";
import { readIdempotency } from "../../http/idempotency";
import { loadJob } from "../job-loader";
import {
  getJobQuerySchema,
  jobCreateSchema,
  jobPageSchema,
  jobSchema,
  listJobsQuerySchema,
} from "../openapi/components";
import {
  apiRouter,
  createHeaders,
  defineRoute,
  idParams,
  JOB_CREATE_ERRORS,
  json,
  jsonBody,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";
import { jobResource, jobResponse } from "../views/job-view";
import { jobBatch } from "./job-batch";
import { jobBulk } from "./job-bulk";
import { jobOperations } from "./job-operations";
import { jobRuns } from "./runs";

export const jobs = apiRouter();

jobs.use("*", tenantScope);
jobs.route("/batch", jobBatch);
jobs.route("/bulk", jobBulk);

defineRoute(
  jobs,
  createRoute({
    method: "post",
    path: "/",
    operationId: "createJob",
    summary: "Create a job",
    tags: ["jobs"],
    request: { headers: createHeaders, body: jsonBody(jobCreateSchema) },
    responses: {
      201: json(
        jobSchema,
        "The new job (ETag: its version; Location: its URL); a replay under the same Idempotency-Key answers the same",
      ),
      ...problems(...JOB_CREATE_ERRORS),
    },
  }),
  async (c) => {
    const body = await readJsonBody(c);
    const nowMs = Date.now();
    const idempotency = await readIdempotency(c, body);
    const created = await createJob(c.env, { tenantId: c.get("tenantId"), body, idempotency, nowMs });
    if (created.replayed) {
      c.header("Idempotent-Replayed", "true");
      return jobResponse(c, created.job, { status: 201 });
    }
    return jobResponse(c, created.job, { nowMs, status: 201, calendars: created.calendars });
  },
);

defineRoute(
  jobs,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listJobs",
    summary: "List jobs, newest first",
    tags: ["jobs"],
    request: { query: listJobsQuerySchema, headers: tenantHeaders },
    responses: {
      200: json(jobPageSchema, "A page of jobs"),
      ...problems(...TENANT_ERRORS, "validation_failed", "invalid_cursor"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
    const rows = await listTenantJobs(c.env, c.get("tenantId"), {
      status: query.status,
      namePrefix: query.name,
      beforeId,
      limit: query.limit + 1,
    });
    const { page, nextCursor } = pageOf(rows, query.limit, (job) => encodeCursor([job.id]));
    const nowMs = Date.now();
    const calendars = await calendarsOfJobs(
      c.env,
      c.get("tenantId"),
      page.map((job) => job.spec),
    );
    return c.json({
      data: page.map((job) => jobResource(job, nowMs, undefined, calendars)),
      next_cursor: nextCursor,
    });
  },
);

defineRoute(
  jobs,
  createRoute({
    method: "get",
    path: "/{id}",
    operationId: "getJob",
    summary: "Read a job with its next fire times",
    tags: ["jobs"],
    request: {
      params: idParams("job_01JDXS3M0000000000000000AB"),
      query: getJobQuerySchema,
      headers: tenantHeaders,
    },
    responses: {
      200: json(jobSchema, "The job (ETag: its version)"),
      ...problems(...TENANT_ERRORS, "job_not_found", "validation_failed"),
    },
  }),
  async (c) => {
    const job = await loadJob(c);
    const query = c.req.valid("query");
    const calendars = await calendarsOfJobs(c.env, job.tenantId, [job.spec]);
    return jobResponse(c, job, { fireCount: query.next, calendars });
  },
);

jobs.route("/", jobOperations);
jobs.route("/", jobRuns);
