import { ApiError } from "./problem";
import { logEvent } from "../log";

/**
 * Calls into src/shard/client.ts. Expected failures come back as values; a throw means the shard
 * could not be reached, which the caller may retry: 503, never a bare 500.
 */
export async function callShard<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    logEvent("api.shard_call_failed", { what, error });
    throw new ApiError(503, "shard_unavailable", `The scheduler shard could not ${what}; retry shortly`);
  }
}

const SHARD_CODES: Record<string, { status: number; detail: string }> = {
  job_not_found: { status: 404, detail: "No such job" },
  job_not_active: { status: 409, detail: "The job is not active" },
  job_deleted: {
    status: 409,
    detail:
      "The job was deleted, so its runs can no longer be retried or redriven. To call its target again, " +
      "create the job anew (POST /v1/jobs) and trigger it (POST /v1/jobs/{id}/trigger)",
  },
  run_not_found: { status: 404, detail: "No such run" },
  run_not_retryable: { status: 409, detail: "Only a FAILED or DEAD_LETTERED run can be retried" },
  too_many_instants: { status: 400, detail: "The range holds more than 1000 instants" },
};

/** A shard's `{ok: false, code}` as the matching HTTP problem. */
export function shardRefusal(code: string): ApiError {
  const known = SHARD_CODES[code];
  return new ApiError(known?.status ?? 409, code, known?.detail ?? `The shard refused: ${code}`);
}
