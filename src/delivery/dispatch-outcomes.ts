// What the dispatch consumer does once the shard decided about an outcome: metrics, logs, and the
// KV hint that lets a redelivery skip an instant already done.

import { logEvent } from "../log";
import type { DispatchRun } from "../shard/protocol";
import type { MessageLog } from "./dispatch-log";
import { recordOutcome } from "./metrics";
import type { Claimed, Reported } from "./shard-batches";

const DONE_KEY_TTL_SECONDS = 7 * 24 * 3600;

export function doneKey(jobId: string, scheduledAtMs: number): string {
  return `done:${jobId}:${scheduledAtMs}`;
}

/** `messageLog`: a success is logged with its message's others (./dispatch-log.ts), not alone. */
export function afterReport(
  report: Reported,
  deliveries: number,
  env: Env,
  ctx: ExecutionContext,
  messageLog?: MessageLog,
): void {
  recordOutcome(env.ANALYTICS, { ...pointOf(report.run), outcome: report.outcome });
  if (
    messageLog &&
    report.outcome.kind === "success" &&
    report.decision?.ok &&
    report.decision.state === "SUCCEEDED"
  )
    messageLog.succeededRun(report.run.runId, report.outcome.durationMs);
  else logOutcome(report);
  if (report.outcome.kind === "success" && worthAHint(report.run, deliveries)) {
    ctx.waitUntil(
      env.DEDUP_KV.put(doneKey(report.run.jobId, report.run.scheduledAtMs), "1", {
        expirationTtl: DONE_KEY_TTL_SECONDS,
      }),
    );
  }
}

/** KV is eventually consistent: a hit proves the instant already succeeded; a miss proves nothing. */
export async function dropKnownDone(runs: readonly DispatchRun[], env: Env): Promise<DispatchRun[]> {
  const hits = await Promise.all(
    runs.map((run) => env.DEDUP_KV.get(doneKey(run.job_id, run.scheduled_at_ms))),
  );
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

export function idsOf(run: Claimed) {
  return { tenant_id: run.tenantId, job_id: run.jobId, run_id: run.runId, fence: run.fence };
}

export function pointOf(run: Claimed) {
  return { tenantId: run.tenantId, jobId: run.jobId, attempt: run.attempt, latenessMs: run.latenessMs };
}
