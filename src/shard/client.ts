// The only way the Worker talks to shards: every call to a ShardScheduler goes through a function
// here, or in ./history-client.ts (run history) and ./test-hook-client.ts (test hooks). Functions
// take the env first and return plain results (types in ./protocol.ts); expected failures are
// values, not exceptions. A job's calls always go to its stored shard (`ShardJob.shard`,
// D1 `jobs.shard`), never to a re-hash of its id: SHARD_COUNT may have changed since it was placed.

import { shardForJob } from "../core/load/placement";
import { logEvent } from "../log";
import type {
  BackfillResult,
  ClaimRequest,
  ClaimResult,
  CompleteRunResult,
  FireNowResult,
  HeartbeatResult,
  LeaseRenewal,
  OutcomeReport,
  OutcomeResult,
  RetryResult,
  RunCompletion,
  ShardJob,
  TriggerResult,
  TzdataProgress,
  WatchdogReport,
} from "./protocol";

// Re-exported while callers move to importing result types from the protocol module.
export type { BackfillResult, RetryResult, TriggerResult } from "./protocol";

export function shardCount(env: Env): number {
  return Number(env.SHARD_COUNT) || 16;
}

/** Where a new job goes. Only for placing it: afterwards its stored shard is the truth. */
export function shardOfJob(env: Env, jobId: string): number {
  return shardForJob(jobId, shardCount(env));
}

/** The Durable Object name of a shard (one instance per name). */
export function shardName(shard: number): string {
  return `shard-${shard}`;
}

/** The shard's stub: for this module and its siblings (./history-client.ts, ./test-hook-client.ts). */
export function shardStub(env: Env, shard: number) {
  return env.SHARD_SCHEDULER.getByName(shardName(shard));
}

/**
 * Sends job snapshots, as given, to their stored shards (grouped, one RPC per shard); the Worker's
 * pushes come through src/service/job-push.ts, which attaches the calendars first. Never throws:
 * returns the `jobId` values whose version the shard confirmed.
 */
export async function pushJobs(env: Env, jobs: readonly ShardJob[]): Promise<Set<string>> {
  const byShard = new Map<number, ShardJob[]>();
  for (const job of jobs) {
    const group = byShard.get(job.shard);
    if (group) group.push(job);
    else byShard.set(job.shard, [job]);
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

/**
 * Suspends (true) or unsuspends a tenant on every shard, in parallel. Never throws: returns the
 * shards that did not confirm (the caller retries them; the change is idempotent).
 */
export async function setTenantSuspendedOnShards(
  env: Env,
  tenantId: string,
  suspended: boolean,
  shards: readonly number[] = Array.from({ length: shardCount(env) }, (_, shard) => shard),
): Promise<number[]> {
  const failed: number[] = [];
  await Promise.all(
    shards.map(async (shard) => {
      try {
        await shardStub(env, shard).setTenantSuspended(shard, tenantId, suspended);
      } catch (error) {
        logEvent("shard.suspend_failed", { shard, tenant_id: tenantId, suspended, error });
        failed.push(shard);
      }
    }),
  );
  return failed;
}

/**
 * Tells these shards the tenant's fair-share weight, in parallel. Never throws: returns the shards
 * that did not confirm (they learn the weight from D1 with the tenant limits, within seconds).
 */
export async function setTenantWeightOnShards(
  env: Env,
  tenantId: string,
  weight: number,
  shards: readonly number[],
): Promise<number[]> {
  const failed: number[] = [];
  await Promise.all(
    shards.map(async (shard) => {
      try {
        await shardStub(env, shard).setTenantWeight(shard, tenantId, weight);
      } catch (error) {
        logEvent("shard.weight_push_failed", { shard, tenant_id: tenantId, error });
        failed.push(shard);
      }
    }),
  );
  return failed;
}

/** Runs the job now, outside its schedule (its own idempotency key: the trigger instant). */
/** `debounceKey` overrides the job's `debounce.key` (ignored for a job without `debounce`). */
export async function triggerJob(
  env: Env,
  shard: number,
  jobId: string,
  debounceKey?: string,
): Promise<TriggerResult> {
  return shardStub(env, shard).trigger(shard, jobId, debounceKey);
}

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

/** Runs the job's waiting delivery now (a retry in backoff, or its next instant), as the same run. */
export async function fireJobNow(env: Env, shard: number, jobId: string): Promise<FireNowResult> {
  return shardStub(env, shard).fireNow(shard, jobId);
}

/** Manual retry or redrive of a FAILED / DEAD_LETTERED run: a new attempt, same idempotency key. */
export async function retryRun(env: Env, shard: number, runId: string): Promise<RetryResult> {
  return shardStub(env, shard).retryRun(shard, runId);
}

/** Claims dispatched runs for execution; one result per claim, in order. Throws if unreachable. */
export async function claimRuns(env: Env, shard: number, claims: ClaimRequest[]): Promise<ClaimResult[]> {
  return shardStub(env, shard).claimRuns(shard, claims);
}

/** Reports target outcomes; one decision per report, in order. Throws if unreachable. */
export async function reportOutcomes(
  env: Env,
  shard: number,
  reports: OutcomeReport[],
): Promise<OutcomeResult[]> {
  return shardStub(env, shard).reportOutcomes(shard, reports);
}

/**
 * Gives runs back to their shard uncalled (the consumer had no connection for them): claimed or
 * not, each is due there again at once. Throws if unreachable (their leases then bring them back).
 */
export async function giveBackRuns(
  env: Env,
  shard: number,
  runs: { runId: string; fence: number }[],
): Promise<number> {
  return shardStub(env, shard).giveBackRuns(shard, runs);
}

/** Renews the leases of claimed runs a consumer still holds (src/core/runs/run-leases.ts). Throws if unreachable. */
export async function renewLeases(env: Env, shard: number, runs: LeaseRenewal[]): Promise<number> {
  return shardStub(env, shard).renewLeases(shard, runs);
}

/** Tells the shard these claimed runs' calls are slow (src/core/runs/slow-calls.ts). Throws if unreachable. */
export async function markSlowCalls(
  env: Env,
  shard: number,
  runs: { runId: string; fence: number }[],
): Promise<number> {
  return shardStub(env, shard).markSlowCalls(shard, runs);
}

/** Dead-letters a run whose dispatch message the queue gave up on, if that dispatch is current. */
export async function deadLetterPoison(
  env: Env,
  shard: number,
  run: { runId: string; fence: number },
  reason: string,
): Promise<boolean> {
  return shardStub(env, shard).deadLetterPoison(shard, run.runId, run.fence, reason);
}

/** The tz database version of the shard's timers, and the progress of any re-derivation. */
export async function shardTzdata(env: Env, shard: number): Promise<TzdataProgress> {
  return shardStub(env, shard).tzdataStatus(shard);
}

/**
 * The shard's maintenance: re-arm a lost alarm, report overdue jobs, prune terminal runs from the
 * wheel after `runsMs` and their history records after `historyMs`.
 */
export async function watchShard(
  env: Env,
  shard: number,
  retention: { runsMs: number; historyMs: number },
): Promise<WatchdogReport> {
  return shardStub(env, shard).watchdog(shard, retention);
}

/**
 * A flow gate's parallelism permits came back: the shard moves up to `count` of its runs waiting
 * on that gate to now, so they ask again at once instead of at their next poll.
 */
export async function wakeFlowWaiters(env: Env, shard: number, gate: string, count: number): Promise<void> {
  await shardStub(env, shard).wakeFlowWaiters(shard, gate, count);
}

/**
 * A tenant's destination host started (or stopped) being throttled: every shard learns it, so its
 * runs to that host ask the host's gate (a shard that never saw the host's refusal would otherwise
 * go on calling it). Rare, so one RPC per shard; a shard not reached learns at its own next refusal.
 */
export async function noteHostThrottledOnShards(
  env: Env,
  host: { gate: string; tenantId: string; origin: string },
  throttled: boolean,
): Promise<void> {
  const shards = Array.from({ length: shardCount(env) }, (_, shard) => shard);
  await Promise.allSettled(
    shards.map((shard) => shardStub(env, shard).noteHostThrottled(shard, host, throttled)),
  );
}

/** A long-running target's completion (its token already verified): ends the attempt it names. */
export async function completeRunAtShard(
  env: Env,
  shard: number,
  completion: RunCompletion,
): Promise<CompleteRunResult> {
  return shardStub(env, shard).completeRun(shard, completion);
}

/** A long-running target's heartbeat: extends the lease of the attempt its token names. */
export async function heartbeatRunAtShard(
  env: Env,
  shard: number,
  runId: string,
  fence: number,
): Promise<HeartbeatResult> {
  return shardStub(env, shard).heartbeatRun(shard, runId, fence);
}
