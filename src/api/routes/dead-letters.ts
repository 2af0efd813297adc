import { Hono } from "hono";
import { z } from "zod";
import {
  claimRedrive,
  deadLetterResource,
  findDeadLetter,
  listDeadLetters,
  releaseRedrive,
} from "../../db/dead-letters";
import { findJob } from "../../db/jobs";
import { findRunShard } from "../../db/runs";
import { retryRun, shardOfJob } from "../../shard/client";
import { decodeTimeCursor, encodeCursor, limitSchema, pageOf } from "../cursor";
import { requireForeignId } from "../ids";
import { tenantScope } from "../middleware/auth";
import { EdgecronError } from "../problem";
import { readQuery } from "../query";
import { callShard, shardRefusal } from "../shard-calls";
import type { AppEnv } from "../types";

const listQuerySchema = z.object({
  job_id: z.string().max(100).optional(),
  limit: limitSchema,
  cursor: z.string().max(400).optional(),
});

function deadLetterNotFound(id?: string): EdgecronError {
  return new EdgecronError(
    "dead_letter_not_found",
    id === undefined ? "No such dead letter" : `No dead letter ${id}`,
  );
}

export const deadLetters = new Hono<AppEnv>();

deadLetters.use("*", tenantScope);

deadLetters.get("/", async (c) => {
  const query = readQuery(c, listQuerySchema);
  const rows = await listDeadLetters(c.env.DB, c.get("tenantId"), {
    jobId: query.job_id,
    cursor: decodeTimeCursor(query.cursor),
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (row) => encodeCursor([row.created_at_ms, row.id]));
  return c.json({ data: page.map(deadLetterResource), next_cursor: nextCursor });
});

/**
 * Claims the dead letter (409 if already redriven), asks the run's shard for a new attempt, and
 * releases the claim if the shard refuses or cannot be reached.
 */
deadLetters.post("/:id/redrive", async (c) => {
  const id = requireForeignId(c.req.param("id"), deadLetterNotFound());
  const tenantId = c.get("tenantId");
  const letter = await findDeadLetter(c.env.DB, tenantId, id);
  if (letter === null) throw deadLetterNotFound(id);
  const claimedAtMs = Date.now();
  if (!(await claimRedrive(c.env.DB, tenantId, id, claimedAtMs))) {
    throw new EdgecronError("already_redriven", `Dead letter ${id} was already redriven`);
  }
  const shard =
    (await findRunShard(c.env.DB, tenantId, letter.run_id)) ??
    (await findJob(c.env.DB, tenantId, letter.job_id))?.shard ??
    shardOfJob(c.env, letter.job_id);
  try {
    const result = await callShard("redrive the run", () => retryRun(c.env, shard, letter.run_id));
    if (!result.ok) throw shardRefusal(result.code);
    return c.json({ run_id: result.runId, attempt: result.attempt, dead_letter_id: id }, 202);
  } catch (error) {
    await releaseRedrive(c.env.DB, id, claimedAtMs);
    throw error;
  }
});
