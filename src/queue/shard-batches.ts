// Claims and outcomes travel to shards in one RPC per shard per consumer batch.
import type { TargetOutcome } from "../core/outcome";
import { logEvent } from "../log";
import { shardStub } from "../shard/client";
import type { ClaimResult, DispatchMessage, OutcomeReport, OutcomeResult } from "../shard/protocol";

export type Claimed = Extract<ClaimResult, { ok: true }> & {
  message: Message<DispatchMessage>;
  fence: number;
  shard: number;
};

export function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Claims every message at its shard; refused claims are acked (the shard said why). */
export async function claimAll(messages: readonly Message<DispatchMessage>[], env: Env): Promise<Claimed[]> {
  const claimed: Claimed[] = [];
  await Promise.all(
    [...groupBy(messages, (message) => message.body.shard)].map(async ([shard, group]) => {
      let results: ClaimResult[];
      try {
        results = await shardStub(env, shard).claimRuns(
          shard,
          group.map((message) => ({ runId: message.body.run_id, fence: message.body.fence })),
        );
      } catch (error) {
        // The shard is unreachable: let the queue redeliver; the shard's lease is the backstop.
        logEvent("run.claim_failed", { shard, runs: group.length, error });
        for (const message of group) message.retry({ delaySeconds: 1 });
        return;
      }
      results.forEach((result, index) => {
        const message = group[index] as Message<DispatchMessage>;
        if (result.ok) {
          claimed.push({ ...result, message, fence: message.body.fence, shard });
        } else {
          logEvent("run.claim_refused", {
            tenant_id: message.body.tenant,
            job_id: message.body.job_id,
            run_id: message.body.run_id,
            fence: message.body.fence,
            reason: result.code,
          });
          message.ack();
        }
      });
    }),
  );
  return claimed;
}

export interface Reported {
  run: Claimed;
  outcome: TargetOutcome;
  /** The shard's decision, or null when the report could not be delivered. */
  decision: OutcomeResult | null;
}

/**
 * Reports outcomes to their shards. A report that cannot be delivered after retries is dropped:
 * the call happened, and the shard's RUNNING lease will count the attempt as failed and retry
 * it, which is the at-least-once side of the guarantee.
 */
export async function reportAll(
  reports: { run: Claimed; outcome: TargetOutcome }[],
  env: Env,
): Promise<Reported[]> {
  const reported: Reported[] = [];
  await Promise.all(
    [...groupBy(reports, (report) => report.run.shard)].map(async ([shard, group]) => {
      const payload: OutcomeReport[] = group.map(({ run, outcome }) => ({
        runId: run.runId,
        fence: run.fence,
        outcome,
      }));
      let decisions: OutcomeResult[] | null = null;
      try {
        decisions = await withRetries(() => shardStub(env, shard).reportOutcomes(shard, payload));
      } catch (error) {
        logEvent("run.outcome_report_failed", { shard, runs: group.length, error });
      }
      group.forEach((report, index) => {
        reported.push({ ...report, decision: decisions?.[index] ?? null });
      });
    }),
  );
  return reported;
}

async function withRetries<T>(call: () => Promise<T>, attempts = 3): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await call();
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
  throw lastError;
}
