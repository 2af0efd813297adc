// What long-running targets call to report back on a run: authenticated by the run token they
// received with the call (Edgecron-Run-Token), not by an API key, so mounted before the API's
// auth. The token names the shard and the attempt, so nothing is looked up to verify it.
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { completeRun, heartbeatRun, runCallbackClaims } from "../../../service/runs/run-callbacks";
import { readBody } from "../../http/body";
import { completeResultSchema, completionBodySchema, heartbeatResultSchema } from "../openapi/components";
import { apiRouter, BODY_ERRORS, defineRoute, idParams, json, jsonBody, problems } from "../openapi/define";

const RUN_TOKEN_HEADER = "edgecron-run-token";
const RUN_ID_EXAMPLE = "run_01JDXS3M0000000000000000AB_1764403200000";
const CALLBACK_ERRORS = [
  "unauthorized",
  "invalid_run_token",
  "run_not_found",
  "attempt_superseded",
  "shard_unavailable",
  "internal_error",
] as const;

const runTokenHeaders = z.object({
  [RUN_TOKEN_HEADER]: z
    .string()
    .optional()
    .meta({ description: "The token the call to the target carried (not an API key)" }),
});

export const runCallbacks = apiRouter();

runCallbacks.openAPIRegistry.registerComponent("securitySchemes", "runToken", {
  type: "apiKey",
  in: "header",
  name: "Edgecron-Run-Token",
  description: "The per-attempt token a long-running target received with the call",
});

defineRoute(
  runCallbacks,
  createRoute({
    method: "post",
    path: "/{id}/complete",
    operationId: "completeRun",
    summary: "A long-running target reports its attempt's end (success or failure, optional result)",
    tags: ["runs"],
    security: [{ runToken: [] }],
    request: {
      params: idParams(RUN_ID_EXAMPLE),
      headers: runTokenHeaders,
      body: jsonBody(completionBodySchema),
    },
    responses: {
      200: json(completeResultSchema, "The attempt ended; `state` is what the run does next"),
      ...problems(...CALLBACK_ERRORS, ...BODY_ERRORS),
    },
  }),
  async (c) => {
    const runId = c.req.param("id");
    const claims = await runCallbackClaims(c.env, runId, c.req.header(RUN_TOKEN_HEADER));
    const body = await readBody(c, completionBodySchema);
    const result = await completeRun(c.env, runId, claims, body);
    return c.json({ run_id: result.runId, attempt: result.attempt, state: result.state });
  },
);

defineRoute(
  runCallbacks,
  createRoute({
    method: "post",
    path: "/{id}/heartbeat",
    operationId: "heartbeatRun",
    summary: "A long-running target is still working: extend the attempt's lease by heartbeat_timeout",
    tags: ["runs"],
    security: [{ runToken: [] }],
    request: { params: idParams(RUN_ID_EXAMPLE), headers: runTokenHeaders },
    responses: {
      200: json(heartbeatResultSchema, "The lease now ends at `lease_expires_at`"),
      ...problems(...CALLBACK_ERRORS),
    },
  }),
  async (c) => {
    const runId = c.req.param("id");
    const claims = await runCallbackClaims(c.env, runId, c.req.header(RUN_TOKEN_HEADER));
    const result = await heartbeatRun(c.env, runId, claims);
    return c.json({
      run_id: result.runId,
      attempt: result.attempt,
      lease_expires_at: new Date(result.leaseExpiresAtMs).toISOString(),
    });
  },
);
