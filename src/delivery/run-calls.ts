// What a dispatch message's calls need and how one is made: the setup read once per message
// (secrets, the run-token key, the resolver), and the call itself, direct or the QStash way.

import type { TargetOutcome } from "../core/runs/outcome";
import { issueRunToken } from "../core/runs/run-token";
import { traceparentOf } from "../core/trace/trace-ids";
import { runTokenSecret } from "../run-tokens";
import { targetPolicyOf } from "../service/private-targets";
import { tenantSecrets } from "../service/tenant-secrets";
import { resolverFromEnv } from "./dns-resolver";
import { callTargetWithCallback } from "./qstash-callbacks";
import type { Claimed } from "./shard-batches";
import { callTarget } from "./target-call";
import type { CallTargetInput } from "./target-input";

export /** What every call of a message needs, read once per message. */
interface CallSetup {
  secrets: Map<string, string[]>;
  tokenSecret: string;
  allowPrivate: boolean;
  /** Private hosts the production policy lets through by name (PRIVATE_TARGET_ALLOW_LIST). */
  allowedTargets: CallTargetInput["allowedTargets"];
  resolveHost: ReturnType<typeof resolverFromEnv>;
}

export async function callSetup(claimed: Claimed[], env: Env): Promise<CallSetup> {
  const [secrets, tokenSecret] = await Promise.all([
    tenantSecrets(
      env.DB,
      claimed.map((run) => run.tenantId),
      Date.now(),
    ),
    runTokenSecret(env),
  ]);
  const policy = targetPolicyOf(env);
  return {
    secrets,
    tokenSecret,
    allowPrivate: policy.allowPrivate,
    allowedTargets: policy.allowedTargets,
    resolveHost: resolverFromEnv(env),
  };
}

export /** One target call; every call carries its attempt's run token (any target may answer 202). */
async function callRun(run: Claimed, setup: CallSetup, env: Env): Promise<TargetOutcome> {
  const runToken =
    run.runToken ??
    (await issueRunToken(setup.tokenSecret, run.runId, {
      shard: run.shard,
      attempt: run.attempt,
      fence: run.fence,
    }));
  const input: CallTargetInput = {
    target: run.target,
    runToken,
    completion: run.completion ?? "response",
    ...(run.qstash ? { qstash: run.qstash.delivery } : {}),
    runId: run.runId,
    jobId: run.jobId,
    scheduledAtMs: run.scheduledAtMs,
    attempt: run.attempt,
    idempotencyKey: run.idempotencyKey,
    traceparent: traceparentOf(run.runId, run.attempt),
    secrets: setup.secrets.get(run.tenantId) ?? [],
    timeoutMs: run.timeoutMs,
    retryOnStatus: run.retryOnStatus,
    allowPrivate: setup.allowPrivate,
    allowedTargets: setup.allowedTargets,
    resolveHost: setup.resolveHost,
    // Binding targets are looked up by name; which names a job may use was checked at create.
    bindings: env as unknown as Readonly<Record<string, unknown>>,
    nowMs: Date.now(),
  };
  // A /v2 job's call is made the QStash way, and its callback queued (qstash-callbacks.ts); a run
  // without QStash options is called directly.
  return run.qstash === undefined ? callTarget(input) : callTargetWithCallback(env, input, run);
}
