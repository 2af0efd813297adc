import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteJob, editJob, moveJobStatus } from "../../../service/jobs/change-job";
import { backfillJob, triggerJob } from "../../../service/jobs/start-job-runs";
import type { AppEnv } from "../../http/app-env";
import { readBody, readJsonBody } from "../../http/body";
import { validationError } from "../../http/problem";
import { pushOptionsOf } from "../../http/push-options";
import { jobIdOf, loadJob } from "../job-loader";
import { expectedVersionOf, mergeJobPatch } from "../job-patch";
import {
  backfillRequestSchema,
  backfillResultSchema,
  jobPatchDocSchema,
  jobSchema,
  triggerRequestSchema,
  triggerResultSchema,
} from "../openapi/components";
import {
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  idParams,
  json,
  jsonBody,
  patchHeaders,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";
import { jobResponse } from "../views/job-view";

export const jobOperations = apiRouter();

defineRoute(
  jobOperations,
  createRoute({
    method: "patch",
    path: "/{id}",
    operationId: "updateJob",
    summary: "Edit a job (JSON Merge Patch); `version` or If-Match guards concurrent edits",
    tags: ["jobs"],
    request: {
      params: idParams("job_01JDXS3M0000000000000000AB"),
      headers: patchHeaders,
      body: jsonBody(jobPatchDocSchema),
    },
    responses: {
      200: json(jobSchema, "The job (ETag: its version)"),
      ...problems(...TENANT_ERRORS, ...BODY_ERRORS, "job_not_found", "job_deleted", "version_conflict"),
    },
  }),
  async (c) => {
    const job = await loadJob(c);
    const raw = await readJsonBody(c);
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw validationError([{ path: "", message: "must be a JSON object" }]);
    }
    const { version: _version, ...patch } = raw as Record<string, unknown>;
    const edited = await editJob(
      c.env,
      {
        job,
        body: mergeJobPatch(job.spec, patch),
        rejectPastOnce: "schedule" in patch || "schedules" in patch,
        expected: expectedVersionOf(c, raw as Record<string, unknown>),
        nowMs: Date.now(),
      },
      pushOptionsOf(c),
    );
    return jobResponse(c, edited.job, { calendars: edited.calendars });
  },
);

defineRoute(
  jobOperations,
  createRoute({
    method: "delete",
    path: "/{id}",
    operationId: "deleteJob",
    summary: "Delete a job (its history stays readable)",
    tags: ["jobs"],
    request: { params: idParams("job_01JDXS3M0000000000000000AB"), headers: tenantHeaders },
    responses: {
      200: json(jobSchema, "The job (ETag: its version)"),
      ...problems(...TENANT_ERRORS, "job_not_found", "version_conflict"),
    },
  }),
  async (c) => {
    const deleted = await deleteJob(c.env, c.get("tenantId"), jobIdOf(c), Date.now(), pushOptionsOf(c));
    return jobResponse(c, deleted);
  },
);

/**
 * Pause and resume: one status to another, idempotent (already there answers the job as it is),
 * refused from any other status.
 */
function defineStatusChange(route: {
  path: "/{id}/pause" | "/{id}/resume";
  operationId: string;
  summary: string;
  from: "ACTIVE" | "PAUSED";
  to: "ACTIVE" | "PAUSED";
}): void {
  defineRoute(
    jobOperations,
    createRoute({
      method: "post",
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      tags: ["jobs"],
      request: { params: idParams("job_01JDXS3M0000000000000000AB"), headers: tenantHeaders },
      responses: {
        200: json(jobSchema, "The job (ETag: its version)"),
        ...problems(...TENANT_ERRORS, "job_not_found", "job_not_active", "version_conflict"),
      },
    }),
    async (c) => {
      const job = await loadJob(c);
      const move = { from: route.from, to: route.to };
      return jobResponse(c, await moveJobStatus(c.env, job, move, Date.now(), pushOptionsOf(c)));
    },
  );
}

defineStatusChange({
  path: "/{id}/pause",
  operationId: "pauseJob",
  summary: "Pause a job",
  from: "ACTIVE",
  to: "PAUSED",
});
defineStatusChange({
  path: "/{id}/resume",
  operationId: "resumeJob",
  summary: "Resume a paused job",
  from: "PAUSED",
  to: "ACTIVE",
});

defineRoute(
  jobOperations,
  createRoute({
    method: "post",
    path: "/{id}/trigger",
    operationId: "triggerJob",
    summary: "Run a job now, once",
    tags: ["jobs"],
    request: {
      params: idParams("job_01JDXS3M0000000000000000AB"),
      headers: tenantHeaders,
      body: { required: false, content: { "application/json": { schema: triggerRequestSchema } } },
    },
    responses: {
      202: json(
        triggerResultSchema,
        "The run is scheduled, or the trigger folded into a run of its debounce key (`folded`)",
      ),
      ...problems(
        ...TENANT_ERRORS,
        ...BODY_ERRORS,
        "job_not_found",
        "job_not_active",
        "tenant_suspended",
        "job_not_synced",
        "shard_unavailable",
      ),
    },
  }),
  async (c) => {
    const job = await loadJob(c);
    const body = hasBody(c) ? await readBody(c, triggerRequestSchema) : {};
    const result = await triggerJob(c.env, job, body.debounce_key);
    return c.json(
      {
        run_id: result.runId,
        job_id: job.id,
        scheduled_at: new Date(result.scheduledAtMs).toISOString(),
        folded: result.folded,
        fire_at: new Date(result.fireAtMs).toISOString(),
      },
      202,
    );
  },
);

defineRoute(
  jobOperations,
  createRoute({
    method: "post",
    path: "/{id}/backfill",
    operationId: "backfillJob",
    summary: "Run the schedule's instants in a past range (inclusive, at most 1,000)",
    tags: ["jobs"],
    request: {
      params: idParams("job_01JDXS3M0000000000000000AB"),
      headers: tenantHeaders,
      body: jsonBody(backfillRequestSchema),
    },
    responses: {
      202: json(backfillResultSchema, "The runs are scheduled; instants that already have a run are skipped"),
      ...problems(
        ...TENANT_ERRORS,
        ...BODY_ERRORS,
        "job_not_found",
        "job_not_active",
        "tenant_suspended",
        "too_many_instants",
        "job_not_synced",
        "shard_unavailable",
      ),
    },
  }),
  async (c) => {
    const job = await loadJob(c);
    const body = await readBody(c, backfillRequestSchema);
    const result = await backfillJob(c.env, job, body, Date.now());
    return c.json({ created: result.created, skipped: result.skipped, run_ids: result.runIds }, 202);
  },
);

/** A trigger's body is optional: none at all (no length, no type) is the same as `{}`. */
function hasBody(c: Context<AppEnv>): boolean {
  const length = c.req.header("content-length");
  return c.req.header("content-type") !== undefined || (length !== undefined && length !== "0");
}
