// Claims and outcomes travel to a shard in one RPC per dispatch message (a message holds runs of
// one shard).
import type { TargetOutcome } from "../core/runs/outcome";
import { logEvent } from "../log";
import { SHARD_CALL_DEADLINE_MS, withinDeadline } from "../service/call-deadline";
import { claimRuns, reportOutcomes } from "../shard/client";
import type { ClaimResult, DispatchRun, OutcomeReport, OutcomeResult } from "../shard/protocol";

export type Claimed = Extract<ClaimResult, { ok: true }> & {
  fence: number;
  shard: number;
  /** The attempt's run token when the shard minted it ahead of the instant. */
  runToken?: string;
};

/**
 * Claims the runs at their shard; returns the claimed ones (refusals are logged: the shard said
 * why), or null when the shard could not be reached (the message should be redelivered; the
 * shard's dispatch lease is the backstop).
 */
export async function claimAtShard(
  env: Env,
  shard: number,
  runs: readonly DispatchRun[],
): Promise<Claimed[] | null> {
  let results: ClaimResult[];
  try {
    results = await withinDeadline(
      claimRuns(
        env,
        shard,
        runs.map((run) => ({ runId: run.run_id, fence: run.fence, jobId: run.job_id })),
      ),
      `claim at shard ${shard}`,
      SHARD_CALL_DEADLINE_MS,
    );
  } catch (error) {
    logEvent("run.claim_failed", { shard, runs: runs.length, error });
    return null;
  }
  const claimed: Claimed[] = [];
  results.forEach((result, index) => {
    const run = runs[index] as DispatchRun;
    if (result.ok) {
      // A token names its attempt and fence: one minted for another attempt is not used.
      const token =
        run.run_token !== undefined && run.attempt === result.attempt ? { runToken: run.run_token } : {};
      claimed.push({ ...result, fence: run.fence, shard, ...token });
    } else {
      logEvent("run.claim_refused", {
        tenant_id: run.tenant_id,
        job_id: run.job_id,
        run_id: run.run_id,
        fence: run.fence,
        reason: result.code,
      });
    }
  });
  return claimed;
}

export interface Reported {
  run: Claimed;
  outcome: TargetOutcome;
  /** The shard's decision, or null when the report could not be delivered. */
  decision: OutcomeResult | null;
}

/**
 * Reports outcomes to their shard. A report that cannot be delivered after retries is dropped:
 * the call happened, and the shard's RUNNING lease will count the attempt as failed and retry
 * it, which is the at-least-once side of the guarantee.
 */
export async function reportAtShard(
  env: Env,
  shard: number,
  reports: { run: Claimed; outcome: TargetOutcome }[],
): Promise<Reported[]> {
  const payload: OutcomeReport[] = reports.map(({ run, outcome }) => ({
    runId: run.runId,
    fence: run.fence,
    outcome,
    jobId: run.jobId,
  }));
  let decisions: OutcomeResult[] | null = null;
  try {
    decisions = await withRetries(() =>
      withinDeadline(reportOutcomes(env, shard, payload), `report at shard ${shard}`, SHARD_CALL_DEADLINE_MS),
    );
  } catch (error) {
    logEvent("run.outcome_report_failed", { shard, runs: reports.length, error });
  }
  return reports.map((report, index) => ({ ...report, decision: decisions?.[index] ?? null }));
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
