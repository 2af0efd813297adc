import { createRoute } from "@hono/zod-openapi";
import { listTenantDeadLetters } from "../../../service/dead-letters";
import { requireForeignId } from "../../../service/ids";
import { deadLetterNotFound, redriveDeadLetterById } from "../../../service/redrive";
import { tenantScope } from "../../http/auth";
import { timeOrderedPage } from "../list-route";
import { deadLetterPageSchema, listDeadLettersQuerySchema, redriveResultSchema } from "../openapi/components";
import {
  apiRouter,
  defineRoute,
  idParams,
  json,
  NEW_ATTEMPT_ERRORS,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";
import { deadLetterResource } from "../views/dead-letter-view";

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
    const page = await timeOrderedPage(
      query,
      (window) => listTenantDeadLetters(c.env, c.get("tenantId"), { jobId: query.job_id, ...window }),
      (row) => row.created_at_ms,
      deadLetterResource,
    );
    return c.json(page);
  },
);

/** One new attempt of the letter's run (see redriveDeadLetter). */
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
      ...problems(...TENANT_ERRORS, "dead_letter_not_found", "already_redriven", ...NEW_ATTEMPT_ERRORS),
    },
  }),
  async (c) => {
    const id = requireForeignId(c.req.param("id"), deadLetterNotFound);
    const tenantId = c.get("tenantId");
    const result = await redriveDeadLetterById(c.env, tenantId, id);
    return c.json({ run_id: result.runId, attempt: result.attempt, dead_letter_id: id }, 202);
  },
);
