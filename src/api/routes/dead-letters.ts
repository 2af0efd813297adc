import { createRoute } from "@hono/zod-openapi";
import {
  claimRedrive,
  deadLetterResource,
  findDeadLetter,
  listDeadLetters,
  releaseRedrive,
} from "../../db/dead-letters";
import { retryRun } from "../../shard/client";
import { shardOfStoredJob } from "../../shard/history";
import { decodeTimeCursor, encodeCursor, pageOf } from "../cursor";
import { requireForeignId } from "../ids";
import { tenantScope } from "../middleware/auth";
import { deadLetterPageSchema, listDeadLettersQuerySchema, redriveResultSchema } from "../openapi/components";
import {
  apiRouter,
  defineRoute,
  idParams,
  json,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";
import { EdgecronError } from "../problem";
import { callShard, shardRefusal } from "../shard-calls";

function deadLetterNotFound(id?: string): EdgecronError {
  return new EdgecronError(
    "dead_letter_not_found",
    id === undefined ? "No such dead letter" : `No dead letter ${id}`,
  );
}

export const deadLetters = apiRouter();

deadLetters.use("*", tenantScope);

defineRoute(
  deadLetters,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listDeadLetters",
    summary: "List dead letters, newest first",
    tags: ["dead-letters"],
    request: { query: listDeadLettersQuerySchema, headers: tenantHeaders },
    responses: {
      200: json(deadLetterPageSchema, "A page of dead letters"),
      ...problems(...TENANT_ERRORS, "validation_failed", "invalid_cursor"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const rows = await listDeadLetters(c.env.DB, c.get("tenantId"), {
      jobId: query.job_id,
      cursor: decodeTimeCursor(query.cursor),
      limit: query.limit + 1,
    });
    const { page, nextCursor } = pageOf(rows, query.limit, (row) =>
      encodeCursor([row.created_at_ms, row.id]),
    );
    return c.json({ data: page.map(deadLetterResource), next_cursor: nextCursor });
  },
);

/**
 * Claims the dead letter (409 if already redriven), asks the run's shard for a new attempt, and
 * releases the claim if the shard refuses or cannot be reached.
 */
defineRoute(
  deadLetters,
  createRoute({
    method: "post",
    path: "/{id}/redrive",
    operationId: "redriveDeadLetter",
    summary: "Redrive a dead letter: one new attempt of its run",
    tags: ["dead-letters"],
    request: { params: idParams("dl_01JDXS3M0000000000000000AB"), headers: tenantHeaders },
    responses: {
      202: json(redriveResultSchema, "The new attempt is scheduled"),
      ...problems(
        ...TENANT_ERRORS,
        "dead_letter_not_found",
        "already_redriven",
        "run_not_found",
        "run_not_retryable",
        "job_deleted",
        "shard_unavailable",
      ),
    },
  }),
  async (c) => {
    const id = requireForeignId(c.req.param("id"), deadLetterNotFound());
    const tenantId = c.get("tenantId");
    const letter = await findDeadLetter(c.env.DB, tenantId, id);
    if (letter === null) throw deadLetterNotFound(id);
    const claimedAtMs = Date.now();
    if (!(await claimRedrive(c.env.DB, tenantId, id, claimedAtMs))) {
      throw new EdgecronError("already_redriven", `Dead letter ${id} was already redriven`);
    }
    // The run lives on its job's shard (a run never moves; its id names the job).
    const shard = await shardOfStoredJob(c.env, tenantId, letter.job_id);
    try {
      const result = await callShard("redrive the run", () => retryRun(c.env, shard, letter.run_id));
      if (!result.ok) throw shardRefusal(result.code);
      return c.json({ run_id: result.runId, attempt: result.attempt, dead_letter_id: id }, 202);
    } catch (error) {
      await releaseRedrive(c.env.DB, id, claimedAtMs);
      throw error;
    }
  },
);
