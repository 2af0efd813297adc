// The only way the Worker talks to shards. Functions take the env first and return plain
// results; expected failures are values, not exceptions.
import { shardForJob } from "../core/jitter";
import type { ShardJob } from "./protocol";

export function shardCount(env: Env): number {
  return Number(env.SHARD_COUNT) || 16;
}

export function shardOfJob(env: Env, jobId: string): number {
  return shardForJob(jobId, shardCount(env));
}

export function shardStub(env: Env, shard: number) {
  return env.SHARD_SCHEDULER.getByName(`shard-${shard}`);
}

/**
 * Sends job snapshots to their shards (grouped, one RPC per shard). Never throws: returns the
 * `jobId` values whose version the shard confirmed; the rest stay unsynced in D1 for the outbox
 * sweep to re-send.
 */
export async function pushJobs(env: Env, jobs: ShardJob[]): Promise<Set<string>> {
  void env;
  void jobs;
  return new Set();
}

export type TriggerResult =
  | { ok: true; runId: string; scheduledAtMs: number }
  | { ok: false; code: "job_not_found" | "job_not_active" };

/** Runs the job now, outside its schedule (its own idempotency key: the trigger instant). */
export async function triggerJob(env: Env, shard: number, jobId: string): Promise<TriggerResult> {
  void env;
  void shard;
  void jobId;
  throw new Error("triggerJob: not implemented yet");
}

export type BackfillResult =
  | { ok: true; created: number; skipped: number; runIds: string[] }
  | { ok: false; code: "job_not_found" | "job_not_active" | "too_many_instants" };

/** Runs every instant of the job's schedule in [fromMs, toMs] (at most 1,000), honouring overlap. */
export async function backfillJob(
  env: Env,
  shard: number,
  jobId: string,
  fromMs: number,
  toMs: number,
): Promise<BackfillResult> {
  void env;
  void shard;
  void jobId;
  void fromMs;
  void toMs;
  throw new Error("backfillJob: not implemented yet");
}

export type RetryResult =
  | { ok: true; runId: string; attempt: number }
  | { ok: false; code: "run_not_found" | "run_not_retryable" | "job_not_active" };

/** Manual retry or redrive of a FAILED / DEAD_LETTERED run: a new attempt, same idempotency key. */
export async function retryRun(env: Env, shard: number, runId: string): Promise<RetryResult> {
  void env;
  void shard;
  void runId;
  throw new Error("retryRun: not implemented yet");
}
