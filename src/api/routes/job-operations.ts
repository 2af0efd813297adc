import { Hono } from "hono";
import { z } from "zod";
import type { StoredJob } from "../../db/jobs";
import { schedulesOf } from "../../core/schedule-set";
import { calendarSetsFor } from "../../db/calendars";
import { backfillJob, triggerJob } from "../../shard/client";
import { readBody, readJsonBody } from "../body";
import { loadJob } from "../job-loader";
import { expectedVersionOf, mergeJobPatch } from "../job-patch";
import {
  allowsPrivateTargets,
  checkBackfillRange,
  checkJobInput,
  pushAndMarkSynced,
  saveJobVersion,
} from "../job-service";
import { jobResponse } from "../job-view";
import { ApiError, validationError } from "../problem";
import { callShard, shardRefusal } from "../shard-calls";
import type { AppEnv } from "../types";

const instant = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });
export const backfillRequestSchema = z.strictObject({ from: instant, to: instant });

export const jobOperations = new Hono<AppEnv>();

jobOperations.patch("/:id", async (c) => {
  const job = await loadJob(c);
  const raw = await readJsonBody(c);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw validationError([{ path: "", message: "must be a JSON object" }]);
  }
  const { version: _version, ...patch } = raw as Record<string, unknown>;
  const expectedVersion = expectedVersionOf(c, raw as Record<string, unknown>);
  if (job.status === "DELETED") throw new ApiError(409, "job_deleted", `Job ${job.id} is deleted`);
  if (expectedVersion !== null && expectedVersion !== job.version)
    throw versionConflict(job, expectedVersion);
  const nowMs = Date.now();
  const merged = mergeJobPatch(job.spec, patch);
  const calendars = await calendarSetsFor(c.env.DB, job.tenantId, [merged as { calendars?: string[] }]);
  const check = checkJobInput(merged, nowMs, [], {
    rejectPastOnce: "schedule" in patch || "schedules" in patch,
    allowPrivate: allowsPrivateTargets(c.env),
    calendars,
  });
  if (!check.ok) throw validationError(check.errors);
  return jobResponse(c, await saveJobVersion(c.env, job, { spec: check.spec }, nowMs), { calendars });
});

jobOperations.delete("/:id", async (c) => {
  const job = await loadJob(c);
  const nowMs = Date.now();
  if (job.status === "DELETED") return jobResponse(c, job);
  return jobResponse(c, await saveJobVersion(c.env, job, { status: "DELETED" }, nowMs));
});

jobOperations.post("/:id/pause", async (c) => {
  const job = await loadJob(c);
  const nowMs = Date.now();
  if (job.status === "PAUSED") return jobResponse(c, job);
  if (job.status !== "ACTIVE") throw notActive(job);
  return jobResponse(c, await saveJobVersion(c.env, job, { status: "PAUSED" }, nowMs));
});

jobOperations.post("/:id/resume", async (c) => {
  const job = await loadJob(c);
  const nowMs = Date.now();
  if (job.status === "ACTIVE") return jobResponse(c, job);
  if (job.status !== "PAUSED") throw notActive(job);
  return jobResponse(c, await saveJobVersion(c.env, job, { status: "ACTIVE" }, nowMs));
});

jobOperations.post("/:id/trigger", async (c) => {
  const job = await syncedJob(c.env, await loadJob(c));
  const result = await callShard("trigger the job", () => triggerJob(c.env, job.shard, job.id));
  if (!result.ok) throw refusalFor(job, result.code);
  return c.json(
    { run_id: result.runId, job_id: job.id, scheduled_at: new Date(result.scheduledAtMs).toISOString() },
    202,
  );
});

jobOperations.post("/:id/backfill", async (c) => {
  const loaded = await loadJob(c);
  const body = await readBody(c, backfillRequestSchema);
  const { fromMs, toMs, instants } = checkBackfillRange(schedulesOf(loaded.spec), body, Date.now());
  if (instants.length === 0) return c.json({ created: 0, skipped: 0, run_ids: [] }, 202);
  const job = await syncedJob(c.env, loaded);
  const result = await callShard("backfill the job", () =>
    backfillJob(c.env, job.shard, job.id, fromMs, toMs),
  );
  if (!result.ok) throw refusalFor(job, result.code);
  return c.json({ created: result.created, skipped: result.skipped, run_ids: result.runIds }, 202);
});

/** The job is in D1, so a shard that does not know it has not been sent it yet: retryable. */
function refusalFor(job: StoredJob, code: string): ApiError {
  if (code !== "job_not_found") return shardRefusal(code);
  return new ApiError(503, "job_not_synced", `Job ${job.id} has not reached its shard yet; retry shortly`);
}

function notActive(job: StoredJob): ApiError {
  return new ApiError(409, "job_not_active", `Job ${job.id} is ${job.status}`);
}

function versionConflict(job: StoredJob, expected: number): ApiError {
  return new ApiError(409, "version_conflict", `Job ${job.id} is at version ${job.version}, not ${expected}`);
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
