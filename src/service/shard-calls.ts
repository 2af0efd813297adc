import { EdgecronError, type ErrorCode } from "../core/common/errors";
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
    throw new EdgecronError("shard_unavailable", `The scheduler shard could not ${what}; retry shortly`);
  }
}

/** The codes a shard refuses with, each a catalogue code (src/core/common/errors.ts), with its detail. */
const SHARD_REFUSALS = {
  job_not_found: "No such job",
  job_not_active: "The job is not active",
  job_deleted:
    "The job was deleted, so its runs can no longer be retried or redriven. To call its target again, " +
    "create the job anew (POST /v1/jobs) and trigger it (POST /v1/jobs/{id}/trigger)",
  run_not_found: "No such run",
  run_not_retryable: "Only a FAILED or DEAD_LETTERED run can be retried",
  too_many_instants: "The range holds more than 1000 instants",
} as const satisfies Partial<Record<ErrorCode, string>>;

export type ShardRefusalCode = keyof typeof SHARD_REFUSALS;

/** A shard's `{ok: false, code}` as the matching problem; the code decides the status. */
export function shardRefusal(code: ShardRefusalCode): EdgecronError {
  return new EdgecronError(code, SHARD_REFUSALS[code]);
}
