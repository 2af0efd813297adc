import { type Context, Hono } from "hono";
import { z } from "zod";
import { jobStatusSchema } from "../../core/job-spec";
import { calendarSetsFor } from "../../db/calendars";
import { findJobByIdempotencyKey, insertJobs, listJobs, type StoredJob } from "../../db/jobs";
import { readJsonBody } from "../body";
import { decodeCursor, encodeCursor, limitSchema, pageOf } from "../cursor";
import { type Idempotency, idempotencyConflict, readIdempotency } from "../idempotency";
import { loadJob } from "../job-loader";
import { allowsPrivateTargets, checkJobInput, newStoredJob, pushAndMarkSynced } from "../job-service";
import { jobResource, jobResponse, MAX_NEXT_FIRES } from "../job-view";
import { tenantScope } from "../middleware/auth";
import { validationError } from "../problem";
import { readQuery } from "../query";
import type { AppEnv } from "../types";
import { jobBatch } from "./job-batch";
import { jobOperations } from "./job-operations";
import { jobRuns } from "./runs";

const listQuerySchema = z.object({
  status: jobStatusSchema.optional(),
  name: z.string().max(200).optional(),
  limit: limitSchema,
  cursor: z.string().max(200).optional(),
});

const getQuerySchema = z.object({
  next: z.coerce.number().int().min(0).max(MAX_NEXT_FIRES).default(5),
});

export const jobs = new Hono<AppEnv>();

jobs.use("*", tenantScope);
jobs.route("/batch", jobBatch);

jobs.post("/", async (c) => {
  const input = await readJsonBody(c);
  const nowMs = Date.now();
  const idempotency = await readIdempotency(c, input);
  if (idempotency !== null) {
    const replay = await replayIfKnown(c, idempotency);
    if (replay !== null) return replay;
  }
  const calendars = await calendarSetsFor(c.env.DB, c.get("tenantId"), [input as { calendars?: string[] }]);
  const check = checkJobInput(input, nowMs, [], { allowPrivate: allowsPrivateTargets(c.env), calendars });
  if (!check.ok) throw validationError(check.errors);
  const job = newStoredJob(c.env, c.get("tenantId"), check.spec, nowMs, idempotency);
  try {
    await insertJobs(c.env.DB, [job]);
  } catch (error) {
    // Two concurrent creates with one key: the unique index lets exactly one in.
    const replay = idempotency === null ? null : await replayIfKnown(c, idempotency);
    if (replay !== null) return replay;
    throw error;
  }
  await pushAndMarkSynced(c.env, [job]);
  return jobResponse(c, job, { nowMs, status: 201, calendars });
});

jobs.get("/", async (c) => {
  const query = readQuery(c, listQuerySchema);
  const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
  const rows = await listJobs(c.env.DB, c.get("tenantId"), {
    status: query.status,
    namePrefix: query.name,
    beforeId,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (job) => encodeCursor([job.id]));
  const nowMs = Date.now();
  const calendars = await calendarSetsFor(
    c.env.DB,
    c.get("tenantId"),
    page.map((job) => job.spec),
  );
  return c.json({
    data: page.map((job) => jobResource(job, nowMs, undefined, calendars)),
    next_cursor: nextCursor,
  });
});

jobs.get("/:id", async (c) => {
  const job = await loadJob(c);
  const query = readQuery(c, getQuerySchema);
  const calendars = await calendarSetsFor(c.env.DB, job.tenantId, [job.spec]);
  return jobResponse(c, job, { fireCount: query.next, calendars });
});

jobs.route("/", jobOperations);
jobs.route("/", jobRuns);

/** Same key + same body: the stored job again; same key + another body: 422. */
async function replayIfKnown(c: Context<AppEnv>, idempotency: Idempotency): Promise<Response | null> {
  const existing: StoredJob | null = await findJobByIdempotencyKey(
    c.env.DB,
    c.get("tenantId"),
    idempotency.key,
  );
  if (existing === null) return null;
  if (existing.requestHash !== idempotency.requestHash) throw idempotencyConflict();
  c.header("Idempotent-Replayed", "true");
  return jobResponse(c, existing, { status: 201 });
}
