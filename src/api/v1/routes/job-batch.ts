import { createRoute } from "@hono/zod-openapi";
import { type CreateJobBatchResult, createJobBatch } from "../../../service/jobs/create-job-batch";
import { readBody } from "../../http/body";
import { readIdempotency } from "../../http/idempotency";
import { toProblem } from "../../http/problem";
import { batchResultSchema, jobBatchDocSchema, jobBatchSchema } from "../openapi/components";
import {
  apiRouter,
  createHeaders,
  defineRoute,
  JOB_CREATE_ERRORS,
  json,
  jsonBody,
  problems,
} from "../openapi/define";
import { jobResource } from "../views/job-view";

export const jobBatch = apiRouter();

defineRoute(
  jobBatch,
  createRoute({
    method: "post",
    path: "/",
    operationId: "createJobs",
    summary: "Create up to 1,000 jobs; each item succeeds or fails on its own",
    tags: ["jobs"],
    request: { headers: createHeaders, body: jsonBody(jobBatchDocSchema) },
    responses: {
      200: json(batchResultSchema, "One result per item, in the request's order"),
      ...problems(...JOB_CREATE_ERRORS),
    },
  }),
  async (c) => {
    const body = await readBody(c, jobBatchSchema);
    const idempotency = await readIdempotency(c, body);
    const result = await createJobBatch(c.env, {
      tenantId: c.get("tenantId"),
      items: body.jobs,
      idempotency,
      nowMs: Date.now(),
    });
    if (result.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(batchResponse(result));
  },
);

function batchResponse({ outcomes, nowMs, calendars }: CreateJobBatchResult) {
  const results = outcomes.map((outcome) =>
    "job" in outcome
      ? { index: outcome.index, status: 201, job: jobResource(outcome.job, nowMs, undefined, calendars) }
      : { index: outcome.index, status: 400, error: toProblem(outcome.error) },
  );
  const created = outcomes.filter((outcome) => "job" in outcome).length;
  return { created, failed: outcomes.length - created, results };
}
