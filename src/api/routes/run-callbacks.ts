// What long-running targets call to report back on a run: authenticated by the run token they
// received with the call (Edgecron-Run-Token), not by an API key, so mounted before the API's
// auth. The token names the shard and the attempt, so nothing is looked up to verify it.
import { Hono } from "hono";
import { completionBodySchema } from "../../core/long-running";
import { type RunTokenClaims, verifyRunToken } from "../../core/run-token";
import { runTokenSecret } from "../../run-tokens";
import { completeRunAtShard, heartbeatRunAtShard, shardCount } from "../../shard/client";
import type { RunCallbackRefusal } from "../../shard/protocol";
import { readBody } from "../body";
import { ApiError } from "../problem";
import { callShard } from "../shard-calls";
import type { AppEnv } from "../types";

export const RUN_TOKEN_HEADER = "edgecron-run-token";

async function verifiedClaims(env: Env, runId: string, token: string | undefined): Promise<RunTokenClaims> {
  if (token === undefined || token.trim() === "") {
    throw new ApiError(401, "unauthorized", "Send the run token the call carried as `Edgecron-Run-Token`");
  }
  const claims = await verifyRunToken(await runTokenSecret(env), runId, token);
  if (claims === null || claims.shard >= shardCount(env)) {
    throw new ApiError(403, "invalid_run_token", `This is not a run token of run ${runId}`);
  }
  return claims;
}

function callbackRefusal(runId: string, code: RunCallbackRefusal, state?: string): ApiError {
  if (code === "run_not_found") return new ApiError(404, "run_not_found", `No run ${runId}`);
  return new ApiError(
    409,
    "attempt_superseded",
    `The token's attempt of run ${runId} is no longer running (the run is ${state ?? "gone"}): it completed, its lease expired, or a newer attempt took over`,
  );
}

export const runCallbacks = new Hono<AppEnv>();

runCallbacks.post("/:id/complete", async (c) => {
  const runId = c.req.param("id");
  const claims = await verifiedClaims(c.env, runId, c.req.header(RUN_TOKEN_HEADER));
  const body = await readBody(c, completionBodySchema);
  const result = await callShard("record the completion", () =>
    completeRunAtShard(c.env, claims.shard, {
      runId,
      fence: claims.fence,
      status: body.status,
      resultJson: body.result === undefined ? null : JSON.stringify(body.result),
      error: body.error ?? null,
      retryable: body.retryable,
    }),
  );
  if (!result.ok) throw callbackRefusal(runId, result.code, result.state);
  return c.json({ run_id: result.runId, attempt: result.attempt, state: result.state });
});

runCallbacks.post("/:id/heartbeat", async (c) => {
  const runId = c.req.param("id");
  const claims = await verifiedClaims(c.env, runId, c.req.header(RUN_TOKEN_HEADER));
  const result = await callShard("record the heartbeat", () =>
    heartbeatRunAtShard(c.env, claims.shard, runId, claims.fence),
  );
  if (!result.ok) throw callbackRefusal(runId, result.code, result.state);
  return c.json({
    run_id: result.runId,
    attempt: result.attempt,
    lease_expires_at: new Date(result.leaseExpiresAtMs).toISOString(),
  });
});
