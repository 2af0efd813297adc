import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { schedulesOf } from "../../../core/schedule-set";
import { calendarSetsFor } from "../../../db/calendars";
import type { StoredJob } from "../../../db/jobs";
import { deleteJobAtOnce, pushControlAction, saveControlAction } from "../../../service/control-push";
import { checkBackfillRange, pushAndMarkSynced } from "../../../service/job-writes";
import { checkJobFor } from "../../../service/jobs/job-check";
import { type ShardRefusalCode, shardRefusal } from "../../../service/shard-calls";
import { backfillJobRange, triggerJobNow } from "../../../service/start-work";
import type { AppEnv } from "../../http/app-env";
import { readBody, readJsonBody } from "../../http/body";
import { EdgecronError, validationError } from "../../http/problem";
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
    const expected = expectedVersionOf(c, raw as Record<string, unknown>);
    if (job.status === "DELETED") throw new EdgecronError("job_deleted", `Job ${job.id} is deleted`);
    const nowMs = Date.now();
    const merged = mergeJobPatch(job.spec, patch);
    const calendars = await calendarSetsFor(c.env.DB, job.tenantId, [merged as { calendars?: string[] }]);
    const check = checkJobFor(c.env, c.get("tenantId"), merged, nowMs, {
      rejectPastOnce: "schedule" in patch || "schedules" in patch,
      calendars,
    });
    // One round trip names every bad field: the version's and the body's together.
    const errors = [...expected.errors, ...(check.ok ? [] : check.errors)];
    if (errors.length > 0 || !check.ok) throw validationError(errors);
    if (expected.version !== null && expected.version !== job.version)
      throw versionConflict(job, expected.version);
    const saved = await saveControlAction(c.env, job, { spec: check.spec }, nowMs, "edit", pushOptionsOf(c));
    return jobResponse(c, saved, { calendars });
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
    const nowMs = Date.now();
    // A live job, the common case, is marked in one statement that returns it; anything else
    // (unknown, already deleted) is read and answered below.
    const deletedAtOnce = await deleteJobAtOnce(
      c.env,
      c.get("tenantId"),
      jobIdOf(c),
      nowMs,
      pushOptionsOf(c),
    );
    if (deletedAtOnce !== null) return jobResponse(c, deletedAtOnce);
    const job = await loadJob(c);
    if (job.status === "DELETED") return jobResponse(c, await resent(c, job));
    const deleted = await saveControlAction(
      c.env,
      job,
      { status: "DELETED" },
      nowMs,
      "stop",
      pushOptionsOf(c),
    );
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
      const nowMs = Date.now();
      if (job.status === route.to) return jobResponse(c, await resent(c, job));
      if (job.status !== route.from) throw notActive(job);
      const options = pushOptionsOf(c);
      return jobResponse(
        c,
        await saveControlAction(c.env, job, { status: route.to }, nowMs, "stop", options),
      );
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
    const loaded = await loadJob(c);
    const body = hasBody(c) ? await readBody(c, triggerRequestSchema) : {};
    if (body.debounce_key !== undefined && !loaded.spec.debounce) {
      throw validationError([{ path: "debounce_key", message: "the job has no `debounce`" }]);
    }
    const job = await syncedJob(c.env, loaded);
    const result = await triggerJobNow(c.env, job, body.debounce_key);
    if (!result.ok) throw refusalFor(job, result.code);
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
    const loaded = await loadJob(c);
    const body = await readBody(c, backfillRequestSchema);
    const { fromMs, toMs, instants } = checkBackfillRange(schedulesOf(loaded.spec), body, Date.now());
    if (instants.length === 0) return c.json({ created: 0, skipped: 0, run_ids: [] }, 202);
    const job = await syncedJob(c.env, loaded);
    const result = await backfillJobRange(c.env, job, fromMs, toMs);
    if (!result.ok) throw refusalFor(job, result.code);
    return c.json({ created: result.created, skipped: result.skipped, run_ids: result.runIds }, 202);
  },
);

/** A trigger's body is optional: none at all (no length, no type) is the same as `{}`. */
function hasBody(c: Context<AppEnv>): boolean {
  const length = c.req.header("content-length");
  return c.req.header("content-type") !== undefined || (length !== undefined && length !== "0");
}

/** The job is in D1, so a shard that does not know it has not been sent it yet: retryable. */
function refusalFor(job: StoredJob, code: ShardRefusalCode): EdgecronError {
  if (code !== "job_not_found") return shardRefusal(code);
  return new EdgecronError("job_not_synced", `Job ${job.id} has not reached its shard yet; retry shortly`);
}

function notActive(job: StoredJob): EdgecronError {
  return new EdgecronError("job_not_active", `Job ${job.id} is ${job.status}`);
}

function versionConflict(job: StoredJob, expected: number): EdgecronError {
  return new EdgecronError("version_conflict", `Job ${job.id} is at version ${job.version}, not ${expected}`);
}

/**
 * A repeated pause, resume or delete changes nothing in D1, but the first one's push may never
 * have reached the shard (it failed, or the client gave up and cancelled it under load): re-send
 * the unconfirmed version, so repeating the request is how a caller makes sure it took effect.
 */
async function resent(c: Context<AppEnv>, job: StoredJob): Promise<StoredJob> {
  if (job.syncedVersion < job.version) await pushControlAction(c.env, [job], "stop", pushOptionsOf(c));
  return job;
}

/**
 * Trigger and backfill go to the shard, which must know the job: re-send an unconfirmed version
 * first (the same push the outbox sweep would do). Deleted jobs never reach the shard; other
 * statuses are the shard's call.
 */
async function syncedJob(env: Env, job: StoredJob): Promise<StoredJob> {
  if (job.status === "DELETED") throw notActive(job);
  if (job.syncedVersion < job.version) await pushAndMarkSynced(env, [job]);
  return job;
}
