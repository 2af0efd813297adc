import { Hono } from "hono";
import { z } from "zod";
import { findRun, listRuns, listRunsOfJob, RUN_STATES, type RunRow, runResource } from "../../db/runs";
import { retryRun } from "../../shard/client";
import { decodeTimeCursor, encodeCursor, limitSchema, pageOf } from "../cursor";
import { requireForeignId } from "../ids";
import { loadJob } from "../job-loader";
import { tenantScope } from "../middleware/auth";
import { EdgecronError } from "../problem";
import { readQuery } from "../query";
import { callShard, shardRefusal } from "../shard-calls";
import type { AppEnv } from "../types";

const pageQuerySchema = z.object({ limit: limitSchema, cursor: z.string().max(400).optional() });
const runsQuerySchema = pageQuerySchema.extend({
  state: z.enum(RUN_STATES).optional(),
  job_id: z.string().max(100).optional(),
});

function runNotFound(id?: string): EdgecronError {
  return new EdgecronError("run_not_found", id === undefined ? "No such run" : `No run ${id}`);
}

function runsPage(rows: RunRow[], limit: number, sortKey: (row: RunRow) => number) {
  const { page, nextCursor } = pageOf(rows, limit, (row) => encodeCursor([sortKey(row), row.id]));
  return { data: page.map(runResource), next_cursor: nextCursor };
}

export const runs = new Hono<AppEnv>();

runs.use("*", tenantScope);

runs.get("/", async (c) => {
  const query = readQuery(c, runsQuerySchema);
  const rows = await listRuns(c.env.DB, c.get("tenantId"), {
    state: query.state,
    jobId: query.job_id,
    cursor: decodeTimeCursor(query.cursor),
    limit: query.limit + 1,
  });
  return c.json(runsPage(rows, query.limit, (row) => row.created_at_ms));
});

runs.get("/:id", async (c) => {
  const id = requireForeignId(c.req.param("id"), runNotFound());
  const row = await findRun(c.env.DB, c.get("tenantId"), id);
  if (row === null) throw runNotFound(id);
  return c.json(runResource(row));
});

/** A new attempt of a FAILED or DEAD_LETTERED run; the shard that owns the run decides. */
runs.post("/:id/retry", async (c) => {
  const id = requireForeignId(c.req.param("id"), runNotFound());
  const row = await findRun(c.env.DB, c.get("tenantId"), id);
  if (row === null) throw runNotFound(id);
  const result = await callShard("retry the run", () => retryRun(c.env, row.shard, row.id));
  if (!result.ok) throw shardRefusal(result.code);
  return c.json({ run_id: result.runId, attempt: result.attempt }, 202);
});

/** Mounted under /v1/jobs: a job's run history, newest scheduled instant first. */
export const jobRuns = new Hono<AppEnv>();

jobRuns.get("/:id/runs", async (c) => {
  const job = await loadJob(c);
  const query = readQuery(c, pageQuerySchema);
  const rows = await listRunsOfJob(c.env.DB, c.get("tenantId"), job.id, {
    cursor: decodeTimeCursor(query.cursor),
    limit: query.limit + 1,
  });
  return c.json(runsPage(rows, query.limit, (row) => row.scheduled_at_ms));
});
