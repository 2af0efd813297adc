// Claims: the authoritative side of at-most-once execution per fence. A consumer claims a
// message's runs in one RPC; each is granted (RUNNING, with its lease) or refused with the reason.
// The runs are in memory: a claim is a lookup and a move, and the batch is one journal row.
import { durationMs } from "../../../src/core/common/duration";
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import { type QstashRunContext, qstashRunContextOf } from "../../../src/core/qstash/delivery";
import { longRunningSettingsOf } from "../../../src/core/runs/long-running";
import { parseRunId } from "../../../src/core/runs/run-id";
import { runIdempotencyKey } from "../../../src/core/runs/run-idempotency";
import { claimLeaseUntilMs } from "../../../src/core/runs/run-leases";
import { TERMINAL_STATES } from "../../../src/core/runs/run-state";
import type { ClaimRequest, ClaimResult } from "../../../src/shard/protocol";
import { noteCancelledUncalled } from "../flow/uncalled-permits";
import { settledStateOf } from "../history/run-lookups";
import { jobSpec, preloadSpecs } from "../jobs/job-specs";
import { suspendedTenants } from "../jobs/suspended-tenants";
import { heldByPause, type Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import { moveRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

export const CLAIM_REASON = "claimed by a consumer";

const TERMINAL = new Set<string>(TERMINAL_STATES);

/** Claims in order; a run named twice in one batch is claimed once (the second is a duplicate). */
export function claimRuns(state: ShardState, claims: readonly ClaimRequest[], nowMs: number): ClaimResult[] {
  const jobs = claims.flatMap((claim) => {
    const job = state.jobs.get(state.runs.get(claim.runId)?.job_id ?? claim.jobId ?? "");
    return job === undefined ? [] : [job];
  });
  preloadSpecs(state, jobs);
  const suspended = suspendedTenants(state);
  return claims.map((claim) => claimRun(state, claim, nowMs, suspended));
}

function claimRun(
  state: ShardState,
  claim: ClaimRequest,
  nowMs: number,
  suspended: ReadonlySet<string>,
): ClaimResult {
  const run = state.runs.get(claim.runId);
  if (run === undefined) return refuseGone(state, claim);
  if (run.fence !== claim.fence) return { ok: false, runId: run.run_id, code: "stale_fence" };
  if (run.state === "CANCELLED") return { ok: false, runId: run.run_id, code: "cancelled" };
  if (run.state === "RUNNING" || TERMINAL.has(run.state))
    return { ok: false, runId: run.run_id, code: "duplicate" };
  if (run.state !== "ACQUIRED" && run.state !== "DISPATCHED") {
    return { ok: false, runId: run.run_id, code: "stale_fence" };
  }
  // Sent ahead of its instant, the run is held by the consumer until then; this is the guard that
  // keeps it so whatever the consumer's clock says. The run stays as it is (its lease re-sends it).
  if (run.fire_at_ms > nowMs) return { ok: false, runId: run.run_id, code: "not_due" };
  const job = state.jobs.get(run.job_id);
  if (job === undefined || job.status === "DELETED") {
    cancelAtClaim(state, run, "job deleted", nowMs);
    return { ok: false, runId: run.run_id, code: "job_deleted" };
  }
  if (suspended.has(job.tenant_id)) {
    cancelAtClaim(state, run, "tenant suspended", nowMs);
    return { ok: false, runId: run.run_id, code: "tenant_suspended" };
  }
  if (heldByPause(job.status, run)) {
    cancelAtClaim(state, run, "job paused", nowMs);
    return { ok: false, runId: run.run_id, code: "job_paused" };
  }
  if (run.job_version !== job.version) {
    cancelAtClaim(state, run, `job edited (run stamped v${run.job_version}, job is v${job.version})`, nowMs);
    return { ok: false, runId: run.run_id, code: "stale_version" };
  }
  const spec = jobSpec(state, job);
  moveRun(state, run, "RUNNING", CLAIM_REASON, nowMs, {
    // Short, and renewed by the consumer while it holds the run (src/core/runs/run-leases.ts).
    due_at_ms: claimLeaseUntilMs(nowMs, durationMs(spec.timeout)),
    lateness_ms: run.lateness_ms ?? Math.max(0, nowMs - run.fire_at_ms),
    accepted_at_ms: null,
    heartbeat_at_ms: null,
    slow_since_ms: null,
  });
  return grantedClaim(run, job, spec, nowMs);
}

/**
 * A claim of a run no longer in memory: one that settled (its message delivered again, or a run
 * cancelled before its call) or never known here.
 */
function refuseGone(state: ShardState, claim: ClaimRequest): ClaimResult {
  const key = parseRunId(claim.runId);
  const settled =
    key === null ? null : settledStateOf(state, claim.runId, claim.jobId ?? key.jobId, key.scheduledAtMs);
  const code = settled === null ? "unknown_run" : settled === "CANCELLED" ? "cancelled" : "duplicate";
  return { ok: false, runId: claim.runId, code };
}

/** A sent run its claim finds it must not call: cancelled, and its flow-control permits returned. */
function cancelAtClaim(state: ShardState, run: Run, reason: string, nowMs: number): void {
  moveRun(state, run, "CANCELLED", reason, nowMs, { due_at_ms: null });
  noteCancelledUncalled(state, [run]);
}

/** What a granted claim tells the consumer: everything its call needs. */
function grantedClaim(run: Run, job: JobRecord, spec: JobSpec, nowMs: number): ClaimResult {
  return {
    ok: true,
    runId: run.run_id,
    jobId: run.job_id,
    tenantId: run.tenant_id,
    attempt: run.attempt,
    scheduledAtMs: run.scheduled_at_ms,
    idempotencyKey: runIdempotencyKey(run.job_id, run.scheduled_at_ms),
    target: spec.target,
    timeoutMs: durationMs(spec.timeout),
    latenessMs: Math.max(0, nowMs - run.fire_at_ms),
    retryOnStatus: spec.retry.retry_on_status,
    completion: longRunningSettingsOf(spec).completion,
    ...qstashClaimField(spec, job.created_at_ms),
  };
}

/** A /v2 job's claims carry what its QStash-format call and callbacks need; /v1 claims nothing. */
function qstashClaimField(spec: JobSpec, jobCreatedAtMs: number): { qstash?: QstashRunContext } {
  const qstash = qstashRunContextOf(spec, jobCreatedAtMs);
  return qstash === undefined ? {} : { qstash };
}
