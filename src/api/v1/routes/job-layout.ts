// The layout migration of an older single-database deployment: each call moves the next batch of
// jobs into their job databases (src/service/job-layout.ts). `npm run migrate:layout` calls it
// until nothing remains.
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { LAYOUT_MOVE_BATCH, moveLegacyJobBatch } from "../../../service/job-layout";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
import {
  ADMIN_ERRORS,
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  json,
  jsonBody,
  problems,
} from "../openapi/define";

const moveRequestSchema = z
  .strictObject({
    limit: z.int().min(1).max(1_000).default(LAYOUT_MOVE_BATCH).meta({ example: LAYOUT_MOVE_BATCH }),
  })
  .meta({ id: "JobLayoutMoveRequest" });

const moveResultSchema = z
  .object({
    moved: z.int().meta({ description: "Jobs copied to their job database in this call", example: 200 }),
    remaining: z.int().meta({
      description: "Jobs still in the legacy table, counted up to 10,000 (0: done)",
      example: 0,
    }),
  })
  .meta({ id: "JobLayoutMoveResult" });

export const jobLayout = apiRouter();

defineRoute(
  jobLayout,
  createRoute({
    method: "post",
    path: "/moves",
    operationId: "moveLegacyJobs",
    summary: "Move the next batch of jobs from the single-database layout to the job databases (admin)",
    tags: ["admin"],
    middleware: [requireAdmin],
    request: { body: jsonBody(moveRequestSchema) },
    responses: {
      200: json(moveResultSchema, "What this call moved and what is left"),
      ...problems(...ADMIN_ERRORS, ...BODY_ERRORS),
    },
  }),
  async (c) => {
    const body = await readBody(c, moveRequestSchema);
    // Whatever LEGACY_JOBS says: the operator asked for the move.
    return c.json(await moveLegacyJobBatch(c.env, body.limit));
  },
);
