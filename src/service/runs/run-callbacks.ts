// runs.complete and runs.heartbeat: what a long-running target reports on its attempt,
// authenticated by the run token it received with the call. The token names the shard and the
// attempt (under its MAC), so nothing is looked up to verify it.
import { EdgecronError } from "../../core/common/errors";
import { type RunTokenClaims, verifyRunToken } from "../../core/runs/run-token";
import { runTokenSecret } from "../../run-tokens";
import { completeRunAtShard, heartbeatRunAtShard } from "../../shard/client";
import type { RunCallbackRefusal } from "../../shard/protocol";
import { callShard } from "../shard-calls";

/** The token's claims on run `runId`: 401 without a token, `invalid_run_token` for another run's. */
export async function runCallbackClaims(
  env: Env,
  runId: string,
  token: string | undefined,
): Promise<RunTokenClaims> {
  if (token === undefined || token.trim() === "") {
    throw new EdgecronError("unauthorized", "Send the run token the call carried as `Edgecron-Run-Token`");
  }
  const claims = await verifyRunToken(await runTokenSecret(env), runId, token);
  // The shard number is ours (under the MAC), and may be past SHARD_COUNT: jobs keep their shard.
  if (claims === null) {
    throw new EdgecronError("invalid_run_token", `This is not a run token of run ${runId}`);
  }
  return claims;
}

export interface Completion {
  status: "succeeded" | "failed";
  /** Kept with the run as JSON; undefined: none. */
  result?: unknown;
  error?: string;
  retryable: boolean;
}

/** The attempt ended; `state` is what the run does next. */
export async function completeRun(
  env: Env,
  runId: string,
  claims: RunTokenClaims,
  completion: Completion,
): Promise<{ runId: string; attempt: number; state: string }> {
  const result = await callShard("record the completion", () =>
    completeRunAtShard(env, claims.shard, {
      runId,
      fence: claims.fence,
      status: completion.status,
      resultJson: completion.result === undefined ? null : JSON.stringify(completion.result),
      error: completion.error ?? null,
      retryable: completion.retryable,
    }),
  );
  if (!result.ok) throw callbackRefusal(runId, result.code, result.state);
  return { runId: result.runId, attempt: result.attempt, state: result.state };
}

/** The attempt's lease extended by its heartbeat timeout. */
export async function heartbeatRun(
  env: Env,
  runId: string,
  claims: RunTokenClaims,
): Promise<{ runId: string; attempt: number; leaseExpiresAtMs: number }> {
  const result = await callShard("record the heartbeat", () =>
    heartbeatRunAtShard(env, claims.shard, runId, claims.fence),
  );
  if (!result.ok) throw callbackRefusal(runId, result.code, result.state);
  return { runId: result.runId, attempt: result.attempt, leaseExpiresAtMs: result.leaseExpiresAtMs };
}

function callbackRefusal(runId: string, code: RunCallbackRefusal, state?: string): EdgecronError {
  if (code === "run_not_found") return new EdgecronError("run_not_found", `No run ${runId}`);
  return new EdgecronError(
    "attempt_superseded",
    `The token's attempt of run ${runId} is no longer running (the run is ${state ?? "gone"}): it completed, its lease expired, or a newer attempt took over`,
  );
}
