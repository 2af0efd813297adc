// Reports from long-running targets (already authenticated by their run token): a completion ends
// the attempt like a consumer's outcome would; a heartbeat renews the attempt's lease. Both are
// refused unless the token's attempt (its fence) is the one running now.
import { longRunningSettingsOf } from "../../../src/core/runs/long-running";
import type {
  CompleteRunResult,
  HeartbeatResult,
  RunCallbackRefusal,
  RunCompletion,
} from "../../../src/shard/protocol";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import { patchRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { applyFailure, applySuccess, type OutcomeEffects } from "./attempt-outcomes";

type Refusal = { ok: false; runId: string; code: RunCallbackRefusal; state?: string };

/** The run when the fence's attempt is running, else why not. */
function runningAttempt(state: ShardState, runId: string, fence: number): Run | Refusal {
  const run = state.runs.get(runId);
  if (run === undefined) {
    const settled = state.settledState(runId);
    return settled === undefined
      ? { ok: false, runId, code: "run_not_found" }
      : { ok: false, runId, code: "attempt_superseded", state: settled };
  }
  if (run.fence !== fence || run.state !== "RUNNING") {
    return { ok: false, runId, code: "attempt_superseded", state: run.state };
  }
  return run;
}

/** Time since the attempt was claimed: the first of the trailing RUNNING events (claimed, accepted). */
function attemptDurationMs(run: Run, nowMs: number): number | null {
  let claimed: { at_ms: number } | undefined;
  for (let index = run.events.length - 1; index >= 0 && run.events[index]?.state === "RUNNING"; index--) {
    claimed = run.events[index];
  }
  return claimed === undefined ? null : Math.max(0, nowMs - claimed.at_ms);
}

export function completeRun(
  state: ShardState,
  completion: RunCompletion,
  nowMs: number,
  effects: OutcomeEffects,
  random: () => number,
): CompleteRunResult {
  const found = runningAttempt(state, completion.runId, completion.fence);
  if ("ok" in found) return found;
  const run = found;
  const job = state.jobs.get(run.job_id) ?? null;
  const durationMs = attemptDurationMs(run, nowMs);
  if (completion.status === "succeeded") {
    applySuccess(state, job, run, "target reported success", nowMs, {
      duration_ms: durationMs,
      result_json: completion.resultJson,
    });
    return { ok: true, runId: run.run_id, attempt: run.attempt, state: "SUCCEEDED" };
  }
  const error = `target reported failure${completion.error ? `: ${completion.error}` : ""}`;
  // A failure's result is kept too: it is what the target could say about what went wrong.
  if (completion.resultJson !== null) patchRun(state, run, nowMs, { result_json: completion.resultJson });
  const decision = applyFailure(
    state,
    job,
    run,
    completion.retryable
      ? { kind: "retryable", status: null, error, retryAfterMs: null, durationMs: durationMs ?? 0 }
      : { kind: "permanent", status: null, error, durationMs: durationMs ?? 0 },
    nowMs,
    effects,
    random,
  );
  const decided = decision.ok && decision.state !== "RUNNING" ? decision.state : "RETRYING";
  return { ok: true, runId: run.run_id, attempt: run.attempt, state: decided };
}

export function heartbeatRun(
  state: ShardState,
  runId: string,
  fence: number,
  nowMs: number,
): HeartbeatResult {
  const found = runningAttempt(state, runId, fence);
  if ("ok" in found) return found;
  const run = found;
  const job = state.jobs.get(run.job_id);
  const { heartbeatTimeoutMs } = longRunningSettingsOf(job === undefined ? {} : jobSpec(state, job));
  // Once the target accepted the work, the lease is the heartbeat timeout from now; a heartbeat
  // during the call itself never cuts the call's own lease (timeout + grace) short.
  const leaseExpiresAtMs =
    run.accepted_at_ms === null
      ? Math.max(nowMs + heartbeatTimeoutMs, run.due_at_ms ?? 0)
      : nowMs + heartbeatTimeoutMs;
  patchRun(state, run, nowMs, { due_at_ms: leaseExpiresAtMs, heartbeat_at_ms: nowMs });
  return { ok: true, runId, attempt: run.attempt, leaseExpiresAtMs };
}
