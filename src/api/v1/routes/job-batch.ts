import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ExclusionSet } from "../../../core/exclusions";
import type { JobSpec } from "../../../core/job-spec";
import { BATCH_SEARCH_UNITS, type SearchAllowance } from "../../../core/schedule-check";
import { calendarSetsFor } from "../../../db/calendars";
import { jobStores } from "../../../db/databases";
import { findJobsByIdempotencyKeysAcross, insertStoredJobs } from "../../../db/job-store";
import type { StoredJob } from "../../../db/jobs";
import { admitJobCreates } from "../../../service/admission";
import {
  checkJobInput,
  databaseForCreate,
  newStoredJob,
  pushAndMarkSynced,
} from "../../../service/job-writes";
import { targetPolicyOf } from "../../../service/private-targets";
import { targetBindingAccess } from "../../../service/target-bindings";
import type { AppEnv } from "../../http/app-env";
import { readBody } from "../../http/body";
import { batchItemKey, type Idempotency, idempotencyConflict, readIdempotency } from "../../http/idempotency";
import { EdgecronError, type Problem, toProblem } from "../../http/problem";
import { batchResultSchema, jobBatchDocSchema, jobBatchSchema } from "../openapi/components";
import {
  apiRouter,
  BODY_ERRORS,
  createHeaders,
  defineRoute,
  json,
  jsonBody,
  problems,
  TENANT_ERRORS,
} from "../openapi/define";
import { jobResource } from "../views/job-view";

type BatchOutcome = { index: number; job: StoredJob } | { index: number; problem: Problem };

export const jobBatch = apiRouter();

/**
 * Each item is validated on its own; the valid ones are inserted together (one D1 batch) and
 * pushed with one pushJobs call. Results keep the request's order. With an Idempotency-Key, each
 * stored job carries the key and its index, so a retry of the same body answers from what the
 * first request stored and creates nothing.
 *
 * A retry of a request that stored nothing (every item refused) is simply processed again.
 */
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
      ...problems(
        ...TENANT_ERRORS,
        ...BODY_ERRORS,
        "idempotency_conflict",
        "tenant_limit_exceeded",
        "tenant_suspended",
      ),
    },
  }),
  async (c) => {
    const body = await readBody(c, jobBatchSchema);
    const idempotency = await readIdempotency(c, body);
    const nowMs = Date.now();
    const searchAllowance = { remainingUnits: BATCH_SEARCH_UNITS };
    // One read of the tenant's calendars for the whole batch, and only when an item names one.
    const calendars = await calendarSetsFor(
      c.env.DB,
      c.get("tenantId"),
      body.jobs as { calendars?: string[] }[],
    );
    const databaseIndex = databaseForCreate(c.env, c.get("tenantId"), idempotency?.key ?? null);
    const outcomes = body.jobs.map((input, index): BatchOutcome => {
      const checked = checkItem(c, input, index, nowMs, { searchAllowance, calendars });
      if ("problem" in checked) return checked;
      const itemIdempotency =
        idempotency === null
          ? null
          : { key: batchItemKey(idempotency.key, index), requestHash: idempotency.requestHash };
      return {
        index,
        job: newStoredJob(c.env, c.get("tenantId"), checked.spec, nowMs, itemIdempotency, databaseIndex),
      };
    });
    const jobs = outcomes.flatMap((outcome) => ("job" in outcome ? [outcome.job] : []));
    // A replay creates nothing, so it is not admitted (or refused) as creates: answer it first.
    if (idempotency !== null && jobs.length > 0) {
      const replay = await replayIfKnown(c, idempotency, body.jobs);
      if (replay !== null) return replay;
    }
    // Over a limit, the whole batch is refused (429): nothing of it is stored.
    await admitJobCreates(c.env, c.get("tenantId"), jobs.length, nowMs);
    try {
      await insertStoredJobs(jobStores(c.env), jobs);
    } catch (error) {
      // The key was used before (a retry, or a concurrent twin): the unique index on the items'
      // keys refused the whole insert, so nothing of this attempt was stored. Inserting first
      // spares every first attempt a lookup of its 1,000 keys.
      const replay = idempotency === null ? null : await replayIfKnown(c, idempotency, body.jobs);
      if (replay !== null) return replay;
      throw error;
    }
    await pushAndMarkSynced(c.env, jobs);
    return c.json(batchResponse(outcomes, nowMs, calendars));
  },
);

function checkItem(
  c: Context<AppEnv>,
  input: unknown,
  index: number,
  nowMs: number,
  shared: { searchAllowance: SearchAllowance; calendars: ReadonlyMap<string, ExclusionSet> },
): { spec: JobSpec } | { index: number; problem: Problem } {
  const check = checkJobInput(input, nowMs, ["jobs", index], {
    targetPolicy: targetPolicyOf(c.env),
    ...shared,
    targets: targetBindingAccess(c.env, c.get("tenantId")),
  });
  if (check.ok) return { spec: check.spec };
  const fields = [...new Set(check.errors.map((error) => error.path))].join(", ");
  return {
    index,
    problem: toProblem(
      new EdgecronError("validation_failed", `Job ${index} has invalid fields: ${fields}`, {
        errors: check.errors,
      }),
    ),
  };
}

function batchResponse(
  outcomes: BatchOutcome[],
  nowMs: number,
  calendars: ReadonlyMap<string, ExclusionSet> = new Map(),
) {
  const results = outcomes.map((outcome) =>
    "job" in outcome
      ? { index: outcome.index, status: 201, job: jobResource(outcome.job, nowMs, undefined, calendars) }
      : { index: outcome.index, status: 400, error: outcome.problem },
  );
  const created = outcomes.filter((outcome) => "job" in outcome).length;
  return { created, failed: outcomes.length - created, results };
}

/**
 * The first request's answer again, from the jobs it stored: an item it stored is that job as it
 * is now; an item it refused is refused again (re-validated for the message; one that would pass
 * now is still not created: the replay creates nothing). Null when that request stored nothing.
 */
async function replayIfKnown(
  c: Context<AppEnv>,
  idempotency: Idempotency,
  items: readonly unknown[],
): Promise<Response | null> {
  const stored = await findJobsByIdempotencyKeysAcross(
    jobStores(c.env),
    c.get("tenantId"),
    items.map((_, index) => batchItemKey(idempotency.key, index)),
  );
  if (stored.length === 0) return null;
  if (stored.some((job) => job.requestHash !== idempotency.requestHash)) throw idempotencyConflict();
  const byKey = new Map(stored.map((job) => [job.idempotencyKey, job]));
  const nowMs = Date.now();
  const searchAllowance = { remainingUnits: BATCH_SEARCH_UNITS };
  const calendars = await calendarSetsFor(c.env.DB, c.get("tenantId"), items as { calendars?: string[] }[]);
  const outcomes = items.map((input, index): BatchOutcome => {
    const job = byKey.get(batchItemKey(idempotency.key, index));
    if (job !== undefined) return { index, job };
    const checked = checkItem(c, input, index, nowMs, { searchAllowance, calendars });
    if ("problem" in checked) return checked;
    return {
      index,
      problem: toProblem(
        new EdgecronError(
          "not_created_by_original_request",
          `Job ${index} was not created by the first request with this Idempotency-Key; send it without the key to create it`,
        ),
      ),
    };
  });
  c.header("Idempotent-Replayed", "true");
  return c.json(batchResponse(outcomes, nowMs, calendars));
}
