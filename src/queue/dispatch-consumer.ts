// The dispatch queue's consumer. A message is a bundle of runs of one shard: claimed at the shard
// in one RPC (the authoritative dedup), called through a limit shared by the whole batch, reported
// back in one RPC (the shard decides what happens next), then acked. Several messages are in
// flight at once, so one message's claim and report overlap another's target calls.
import type { TargetOutcome } from "../core/outcome";
import { issueRunToken } from "../core/run-token";
import { logEvent } from "../log";
import { runTokenSecret } from "../run-tokens";
import {
  type DispatchMessage,
  type DispatchRun,
  runsOfMessage,
  type SingleRunDispatchMessage,
} from "../shard/protocol";
import { resolverFromEnv } from "./dns-resolver";
import { recordDispatch, recordOutcome } from "./metrics";
import { limiter, runPool } from "./pool";
import { callTargetWithCallback } from "./qstash-callbacks";
import { type Claimed, claimAtShard, type Reported, reportAtShard } from "./shard-batches";
import { tenantSecrets } from "./tenant-secrets";
import { type ConsumerTestSeam, consumerTestSeam } from "./test-faults";

/**
 * Concurrent target calls per batch: enough to hide target latency, few enough to keep sockets
 * sane (under wrangler dev every outbound fetch holds several sockets in its proxy).
 * Measured under wrangler dev, 300 jobs due at one instant: 32 -> p50 2.3 s, 64 -> p50 1.2 s.
 */
const TARGET_CONCURRENCY = 64;
/** Messages worked at once: enough that a claim or a report never leaves the call limit idle. */
const MESSAGES_IN_FLIGHT = 8;
const DONE_KEY_TTL_SECONDS = 7 * 24 * 3600;

export function doneKey(jobId: string, scheduledAtMs: number): string {
  return `done:${jobId}:${scheduledAtMs}`;
}

type AnyDispatchMessage = DispatchMessage | SingleRunDispatchMessage;

interface BatchContext {
  env: Env;
  ctx: ExecutionContext;
  testSeam: ConsumerTestSeam;
  limit: ReturnType<typeof limiter>;
  calls: number;
}

export async function handleDispatchBatch(
  batch: MessageBatch<AnyDispatchMessage>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const context: BatchContext = {
    env,
    ctx,
    testSeam: await consumerTestSeam(env),
    limit: limiter(TARGET_CONCURRENCY),
    calls: 0,
  };
  const results = await runPool(batch.messages, MESSAGES_IN_FLIGHT, (message) =>
    handleMessage(message, context),
  );
  context.testSeam.afterBatch(context.calls);
  results.forEach((result, index) => {
    if (result.status === "fulfilled") return;
    // A bug, not a target failure (callTarget never throws): redeliver; claims refuse duplicates.
    logEvent("dispatch.message_failed", { error: result.reason });
    batch.messages[index]?.retry({ delaySeconds: 1 });
  });
}

async function handleMessage(message: Message<AnyDispatchMessage>, context: BatchContext): Promise<void> {
  const { env } = context;
  const { shard, runs } = runsOfMessage(message.body);
  const fresh = message.attempts > 1 ? await dropKnownDone(runs, env) : runs;
  const claimed = fresh.length === 0 ? [] : await claimAtShard(env, shard, fresh);
  if (claimed === null) {
    message.retry({ delaySeconds: 1 });
    return;
  }
  if (claimed.length > 0) {
    const outcomes = await callTargets(claimed, context);
    context.testSeam.beforeReport();
    const reported = await reportAtShard(
      env,
      shard,
      claimed.map((run, index) => ({ run, outcome: outcomes[index] as TargetOutcome })),
    );
    for (const report of reported) afterReport(report, message.attempts, context);
  }
  message.ack();
}

async function callTargets(claimed: Claimed[], context: BatchContext): Promise<TargetOutcome[]> {
  const { env, testSeam } = context;
  const secrets = await tenantSecrets(
    env.DB,
    claimed.map((run) => run.tenantId),
    Date.now(),
  );
  const allowPrivate = env.ALLOW_PRIVATE_TARGETS === "true";
  const tokenSecret = await runTokenSecret(env);
  const resolveHost = resolverFromEnv(env);
  for (const run of claimed) {
    recordDispatch(env.ANALYTICS, pointOf(run));
    logEvent("run.dispatched", { ...idsOf(run), attempt: run.attempt, lateness_ms: run.latenessMs });
  }
  return Promise.all(
    claimed.map((run) =>
      context.limit(async () => {
        context.calls += 1;
        testSeam.beforeCall(context.calls);
        // Every call carries its attempt's run token: any target may answer 202 + Edgecron-Async.
        const runToken = await issueRunToken(tokenSecret, run.runId, {
          shard: run.shard,
          attempt: run.attempt,
          fence: run.fence,
        });
        return callTargetWithCallback(
          env,
          {
            target: run.target,
            runToken,
            completion: run.completion ?? "response",
            ...(run.qstash ? { qstash: run.qstash.delivery } : {}),
            runId: run.runId,
            jobId: run.jobId,
            scheduledAtMs: run.scheduledAtMs,
            attempt: run.attempt,
            idempotencyKey: run.idempotencyKey,
            secrets: secrets.get(run.tenantId) ?? [],
            timeoutMs: run.timeoutMs,
            retryOnStatus: run.retryOnStatus,
            allowPrivate,
            resolveHost,
            // Binding targets are looked up by name; which names a job may use was checked at create.
            bindings: env as unknown as Readonly<Record<string, unknown>>,
            nowMs: Date.now(),
          },
          run,
        );
      }),
    ),
  );
}

function afterReport(report: Reported, deliveries: number, context: BatchContext): void {
  recordOutcome(context.env.ANALYTICS, { ...pointOf(report.run), outcome: report.outcome });
  logOutcome(report);
  if (report.outcome.kind === "success" && worthAHint(report.run, deliveries)) {
    context.ctx.waitUntil(
      context.env.DEDUP_KV.put(doneKey(report.run.jobId, report.run.scheduledAtMs), "1", {
        expirationTtl: DONE_KEY_TTL_SECONDS,
      }),
    );
  }
}

/** KV is eventually consistent: a hit proves the instant already succeeded; a miss proves nothing. */
async function dropKnownDone(runs: readonly DispatchRun[], env: Env): Promise<DispatchRun[]> {
  const hits = await Promise.all(runs.map((run) => env.DEDUP_KV.get(doneKey(run.job_id, run.scheduled_at))));
  const fresh: DispatchRun[] = [];
  runs.forEach((run, index) => {
    if (hits[index] === null) fresh.push(run);
    else logEvent("run.duplicate_dropped", { job_id: run.job_id, run_id: run.run_id, via: "kv" });
  });
  return fresh;
}

/**
 * The KV hint only saves a shard RPC when the same instant is delivered again, and duplicates
 * cluster where delivery already repeated: a queue redelivery, a lease re-send, a retry. Writing
 * it for every first-time success would cost one KV write per trigger (50,000/s at peak) and, in
 * a queue consumer, hold the batch until the writes settle. The shard's claim refuses every
 * duplicate either way. Only redeliveries read it (a first delivery is new unless the shard says
 * otherwise).
 */
function worthAHint(run: Claimed, deliveries: number): boolean {
  return deliveries > 1 || run.attempt > 1;
}

function logOutcome({ run, outcome, decision }: Reported): void {
  const ids = idsOf(run);
  logEvent("run.outcome", {
    ...ids,
    attempt: run.attempt,
    outcome: outcome.kind,
    target_status: outcome.status,
    duration_ms: outcome.durationMs,
    ...("error" in outcome ? { error: outcome.error } : {}),
  });
  if (decision?.ok && decision.state === "RETRYING") {
    logEvent("run.retry_scheduled", {
      ...ids,
      next_attempt: run.attempt + 1,
      next_attempt_at: new Date(decision.nextAttemptAtMs ?? 0).toISOString(),
    });
  } else if (decision?.ok && decision.state === "DEAD_LETTERED") {
    logEvent("run.dead_lettered", { ...ids, attempt: run.attempt });
  } else if (decision?.ok && decision.state === "RUNNING") {
    logEvent("run.accepted", { ...ids, attempt: run.attempt });
  }
}

function idsOf(run: Claimed) {
  return { tenant_id: run.tenantId, job_id: run.jobId, run_id: run.runId, fence: run.fence };
}

function pointOf(run: Claimed) {
  return { tenantId: run.tenantId, jobId: run.jobId, attempt: run.attempt, latenessMs: run.latenessMs };
}
