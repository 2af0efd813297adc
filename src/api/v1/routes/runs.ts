import { createRoute } from "@hono/zod-openapi";
import { requireForeignId } from "../../../service/ids";
import { findRunRecord, listJobRunRecords, listTenantRunRecords } from "../../../service/run-history";
import { callShard, shardRefusal } from "../../../service/shard-calls";
import { retryRunAttempt } from "../../../service/start-work";
import type { HistoryRecord } from "../../../shard/history-protocol";
import { tenantScope } from "../../http/auth";
import { EdgecronError } from "../../http/problem";
import { loadJob } from "../job-loader";
import { type TimeWindow, timeOrderedPage } from "../list-route";
import {
  listRunsQuerySchema,
  pageQuerySchema,
  retryResultSchema,
  runPageSchema,
  runSchema,
} from "../openapi/components";
import {
  apiRouter,
  defineRoute,
  idParams,
  json,
  NEW_ATTEMPT_ERRORS,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";
import { runResource } from "../views/run-view";

function runNotFound(id?: string): EdgecronError {
  return new EdgecronError("run_not_found", id === undefined ? "No such run" : `No run ${id}`);
}

/** A page of runs, newest scheduled instant first. */
function runsPage(
  query: { cursor?: string | undefined; limit: number },
  list: (window: TimeWindow) => Promise<HistoryRecord[]>,
) {
  return timeOrderedPage(query, list, (row) => row.scheduled_at_ms, runResource);
}

export const runs = apiRouter();

runs.use("*", tenantScope);

defineRoute(
  runs,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listRuns",
    summary: "List runs, newest first",
    tags: ["runs"],
    request: { query: listRunsQuerySchema, headers: tenantHeaders },
    responses: {
      200: json(runPageSchema, "A page of runs"),
      ...problems(...TENANT_ERRORS, "validation_failed", "invalid_cursor", "shard_unavailable"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = await runsPage(query, (window) =>
      callShard("list the runs", () =>
        listTenantRunRecords(c.env, c.get("tenantId"), {
          state: query.state,
          jobId: query.job_id,
          ...window,
        }),
      ),
    );
    return c.json(page);
  },
);

defineRoute(
  runs,
  createRoute({
    method: "get",
    path: "/{id}",
    operationId: "getRun",
    summary: "Read a run with its events",
    tags: ["runs"],
    request: { params: idParams("run_01JDXS3M0000000000000000AB"), headers: tenantHeaders },
    responses: {
      200: json(runSchema, "The run"),
      ...problems(...TENANT_ERRORS, "run_not_found", "shard_unavailable"),
    },
  }),
  async (c) => {
    const id = requireForeignId(c.req.param("id"), runNotFound);
    const row = await callShard("read the run", () => findRunRecord(c.env, c.get("tenantId"), id));
    if (row === null) throw runNotFound(id);
    return c.json(runResource(row));
  },
);

/** A new attempt of a FAILED or DEAD_LETTERED run; the shard that owns the run decides. */
defineRoute(
  runs,
  createRoute({
    method: "post",
    path: "/{id}/retry",
    operationId: "retryRun",
    summary: "Retry a FAILED or DEAD_LETTERED run",
    tags: ["runs"],
    request: { params: idParams("run_01JDXS3M0000000000000000AB"), headers: tenantHeaders },
    responses: {
      202: json(retryResultSchema, "The new attempt is scheduled"),
      ...problems(...TENANT_ERRORS, ...NEW_ATTEMPT_ERRORS),
    },
  }),
  async (c) => {
    const id = requireForeignId(c.req.param("id"), runNotFound);
    const row = await callShard("read the run", () => findRunRecord(c.env, c.get("tenantId"), id));
    if (row === null) throw runNotFound(id);
    const result = await retryRunAttempt(c.env, {
      tenantId: c.get("tenantId"),
      shard: row.shard,
      runId: row.id,
    });
    if (!result.ok) throw shardRefusal(result.code);
    return c.json({ run_id: result.runId, attempt: result.attempt }, 202);
  },
);

/** Mounted under /v1/jobs: a job's run history, newest scheduled instant first. */
export const jobRuns = apiRouter();

defineRoute(
  jobRuns,
  createRoute({
    method: "get",
    path: "/{id}/runs",
    operationId: "listJobRuns",
    summary: "A job's run history, newest scheduled instant first",
    tags: ["runs"],
    request: {
      params: idParams("job_01JDXS3M0000000000000000AB"),
      query: pageQuerySchema,
      headers: tenantHeaders,
    },
    responses: {
      200: json(runPageSchema, "A page of the job's runs"),
      ...problems(
        ...TENANT_ERRORS,
        "job_not_found",
        "validation_failed",
        "invalid_cursor",
        "shard_unavailable",
      ),
    },
  }),
  async (c) => {
    const job = await loadJob(c);
    const page = await runsPage(c.req.valid("query"), (window) =>
      callShard("list the job's runs", () => listJobRunRecords(c.env, job, c.get("tenantId"), window)),
    );
    return c.json(page);
  },
);
