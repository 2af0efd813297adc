// The only way the Worker talks to shards. Functions take the env first and return plain
// results; expected failures are values, not exceptions.
import { shardForJob } from "../core/jitter";
import { attachCalendars } from "../db/calendars";
import { logEvent } from "../log";
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
export async function pushJobs(env: Env, snapshots: ShardJob[]): Promise<Set<string>> {
  // Every push (create, edit, the outbox sweep) carries the calendars the jobs name, fresh from D1.
  let jobs: ShardJob[];
  try {
    jobs = await attachCalendars(env.DB, snapshots);
  } catch (error) {
    // A job pushed without its calendars would fire on excluded instants: push none of them.
    logEvent("shard.push_failed", { jobs: snapshots.length, error, note: "calendars unreadable" });
    return new Set();
  }
  const byShard = new Map<number, ShardJob[]>();
  const shards = shardCount(env);
  for (const job of jobs) {
    const shard = shardForJob(job.jobId, shards);
    const group = byShard.get(shard);
    if (group) group.push(job);
    else byShard.set(shard, [job]);
  }
  const confirmed = new Set<string>();
  await Promise.all(
    [...byShard].map(async ([shard, group]) => {
      try {
        const result = await shardStub(env, shard).upsertJobs(shard, group);
        for (const jobId of result.confirmed) confirmed.add(jobId);
      } catch (error) {
        logEvent("shard.push_failed", { shard, jobs: group.length, error });
      }
    }),
  );
  return confirmed;
}

export type TriggerResult =
  | { ok: true; runId: string; scheduledAtMs: number }
  | { ok: false; code: "job_not_found" | "job_not_active" };

/** Runs the job now, outside its schedule (its own idempotency key: the trigger instant). */
export async function triggerJob(env: Env, shard: number, jobId: string): Promise<TriggerResult> {
  return shardStub(env, shard).trigger(shard, jobId);
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
  return shardStub(env, shard).backfill(shard, jobId, fromMs, toMs);
}

export type RetryResult =
  | { ok: true; runId: string; attempt: number }
  | { ok: false; code: "run_not_found" | "run_not_retryable" | "job_not_active" };

/** Manual retry or redrive of a FAILED / DEAD_LETTERED run: a new attempt, same idempotency key. */
export async function retryRun(env: Env, shard: number, runId: string): Promise<RetryResult> {
  return shardStub(env, shard).retryRun(shard, runId);
}
