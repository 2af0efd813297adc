import { Hono } from "hono";
import { z } from "zod";
import type { StoredJob } from "../../db/jobs";
import { readBody } from "../body";
import { allowsPrivateTargets, checkJobInput, createJobs, newStoredJob } from "../job-service";
import { jobResource } from "../job-view";
import { type Problem, problemOf } from "../problem";
import type { AppEnv } from "../types";

export const MAX_BATCH_JOBS = 1000;

export const jobBatchSchema = z.strictObject({
  jobs: z.array(z.unknown()).min(1).max(MAX_BATCH_JOBS, `must hold at most ${MAX_BATCH_JOBS} jobs`),
});

type BatchOutcome = { index: number; job: StoredJob } | { index: number; problem: Problem };

export const jobBatch = new Hono<AppEnv>();

/**
 * Each item is validated on its own; the valid ones are inserted together (one D1 batch) and
 * pushed with one pushJobs call. Results keep the request's order.
 */
jobBatch.post("/", async (c) => {
  const body = await readBody(c, jobBatchSchema);
  const nowMs = Date.now();
  const allowPrivate = allowsPrivateTargets(c.env);
  const outcomes = body.jobs.map((input, index): BatchOutcome => {
    const check = checkJobInput(input, nowMs, ["jobs", index], { allowPrivate });
    if (check.ok) return { index, job: newStoredJob(c.env, c.get("tenantId"), check.spec, nowMs) };
    const fields = [...new Set(check.errors.map((error) => error.path))].join(", ");
    return {
      index,
      problem: problemOf(
        400,
        "validation_failed",
        `Job ${index} has invalid fields: ${fields}`,
        check.errors,
      ),
    };
  });
  const jobs = outcomes.flatMap((outcome) => ("job" in outcome ? [outcome.job] : []));
  await createJobs(c.env, jobs);
  const results = outcomes.map((outcome) =>
    "job" in outcome
      ? { index: outcome.index, status: 201, job: jobResource(outcome.job, nowMs) }
      : { index: outcome.index, status: 400, error: outcome.problem },
  );
  return c.json({ created: jobs.length, failed: outcomes.length - jobs.length, results });
});
