// Claims: the authoritative side of at-most-once execution per fence. A consumer claims a
// message's runs in one RPC; each is granted (RUNNING, with its lease) or refused with the reason.
import { durationMs } from "../../../src/core/duration";
import type { JobSpec } from "../../../src/core/job-spec";
import { longRunningSettingsOf } from "../../../src/core/long-running";
import { type QstashRunContext, qstashRunContextOf } from "../../../src/core/qstash/delivery";
import { runIdempotencyKey } from "../../../src/core/run-idempotency";
import { TERMINAL_STATES } from "../../../src/core/run-state";
import type { ClaimRequest, ClaimResult } from "../../../src/shard/protocol";
import { noteCancelledUncalled } from "../flow/uncalled-permits";
import { getJobHeads, type JobHead, specOf } from "../jobs/held-jobs";
import { suspendedTenantsAmong } from "../jobs/suspension";
import { type BatchRows, RUNNING_LEASE_GRACE_MS, readBatch } from "./attempt-outcomes";
import {
  type ClaimedRunRow,
  type ClaimStart,
  claimReadyRuns,
  inRequestOrder,
  type ReadyClaim,
  startClaimedRuns,
} from "./run-batches";
import { heldByPause, moveRun, type RunRow } from "./run-store";
import { runSettled } from "./settled-instants";

const TERMINAL = new Set<string>(TERMINAL_STATES);

/**
 * Claims in order. Claims that name their job and find it active are granted in one statement
 * without reading their runs (grantReadyClaims); the rest are decided on their rows, which say
 * why a claim is refused. A run named twice in one batch is claimed once.
 */
export function claimRuns(sql: SqlStorage, claims: readonly ClaimRequest[], nowMs: number): ClaimResult[] {
  const { granted, jobs } = grantReadyClaims(sql, claims, nowMs);
  const rest = claims.filter((_, index) => !granted.has(index));
  const rows = readBatch(
    sql,
    rest.map((claim) => claim.runId),
    jobs,
  );
  const started: ClaimStart[] = [];
  // The row objects are shared: a run claimed here reads RUNNING at once for a second claim.
  const suspended = suspendedTenantsAmong(
    sql,
    [...rows.jobs.values()].map((job) => job.tenant_id),
  );
  const restResults = rest.map((claim) => claimRun(rows, sql, claim, nowMs, started, suspended));
  startClaimedRuns(sql, started, nowMs);
  return inRequestOrder(claims.length, granted, restResults);
}

/**
 * The fast path: a claim for a run of a job neither paused nor deleted, at the job's current
 * version and the claimed fence, whose instant has come, moves to RUNNING without its row being
 * read. The statement skips any run that is not so (decided below, on its row); only a run's first
 * claim in the batch is tried.
 */
function grantReadyClaims(
  sql: SqlStorage,
  claims: readonly ClaimRequest[],
  nowMs: number,
): { granted: Map<number, ClaimResult>; jobs: Map<string, JobHead> } {
  const jobs = getJobHeads(
    sql,
    claims.flatMap((claim) => (claim.jobId === undefined ? [] : [claim.jobId])),
  );
  // A suspended tenant's claims are refused on their rows below.
  const suspended = suspendedTenantsAmong(
    sql,
    [...jobs.values()].map((job) => job.tenant_id),
  );
  const seen = new Set<string>();
  const ready: ReadyClaim[] = [];
  const indexOf = new Map<string, number>();
  claims.forEach((claim, index) => {
    const job = claim.jobId === undefined ? undefined : jobs.get(claim.jobId);
    if (job === undefined || seen.has(claim.runId)) return;
    seen.add(claim.runId);
    // A paused job's run may still go (one retried by hand): that, and a deleted job, the row decides.
    // A one-shot job reads COMPLETED once its instant has fired; its run is as claimable as before.
    if (job.status === "PAUSED" || job.status === "DELETED" || suspended.has(job.tenant_id)) return;
    ready.push({
      runId: claim.runId,
      jobId: job.job_id,
      fence: claim.fence,
      jobVersion: job.version,
      dueAtMs: nowMs + durationMs(specOf(job).timeout) + RUNNING_LEASE_GRACE_MS,
    });
    indexOf.set(claim.runId, index);
  });
  const granted = new Map<number, ClaimResult>();
  for (const row of claimReadyRuns(sql, ready, nowMs)) {
    const job = jobs.get(row.job_id) as JobHead;
    granted.set(indexOf.get(row.run_id) as number, grantedClaim(row, job, nowMs));
  }
  return { granted, jobs };
}

function claimRun(
  rows: BatchRows,
  sql: SqlStorage,
  claim: ClaimRequest,
  nowMs: number,
  started: ClaimStart[],
  suspended: ReadonlySet<string>,
): ClaimResult {
  const run = rows.runs.get(claim.runId);
  if (!run) {
    // A claim of a run that settled and left `runs` (./settle.ts): its message delivered again.
    const settled = runSettled(sql, claim.runId, claim.jobId);
    return { ok: false, runId: claim.runId, code: settled ? "duplicate" : "unknown_run" };
  }
  if (run.fence !== claim.fence) return { ok: false, runId: run.run_id, code: "stale_fence" };
  // Cancelled by a delete, pause, edit or suspend that reached the shard first: not a duplicate.
  if (run.state === "CANCELLED") return { ok: false, runId: run.run_id, code: "cancelled" };
  if (run.state === "RUNNING" || TERMINAL.has(run.state))
    return { ok: false, runId: run.run_id, code: "duplicate" };
  if (run.state !== "ACQUIRED" && run.state !== "DISPATCHED") {
    return { ok: false, runId: run.run_id, code: "stale_fence" };
  }
  // Sent ahead of its instant, the run is held by the consumer until then; this is the guard that
  // keeps it so whatever the consumer's clock says. The run stays as it is (its lease re-sends it).
  if (run.fire_at_ms > nowMs) return { ok: false, runId: run.run_id, code: "not_due" };
  const job = rows.jobs.get(run.job_id);
  if (!job || job.status === "DELETED") {
    cancelAtClaim(sql, run, "job deleted", nowMs);
    return { ok: false, runId: run.run_id, code: "job_deleted" };
  }
  if (suspended.has(job.tenant_id)) {
    cancelAtClaim(sql, run, "tenant suspended", nowMs);
    return { ok: false, runId: run.run_id, code: "tenant_suspended" };
  }
  if (heldByPause(job.status, run)) {
    cancelAtClaim(sql, run, "job paused", nowMs);
    return { ok: false, runId: run.run_id, code: "job_paused" };
  }
  if (run.job_version !== job.version) {
    cancelAtClaim(sql, run, `job edited (run stamped v${run.job_version}, job is v${job.version})`, nowMs);
    return { ok: false, runId: run.run_id, code: "stale_version" };
  }
  // Written with the batch's other claims (startClaimedRuns); this row object reads RUNNING now.
  started.push({
    runId: run.run_id,
    dueAtMs: nowMs + durationMs(specOf(job).timeout) + RUNNING_LEASE_GRACE_MS,
    latenessMs: Math.max(0, nowMs - run.fire_at_ms),
  });
  run.state = "RUNNING";
  return grantedClaim(run, job, nowMs);
}

/** A sent run its claim finds it must not call: cancelled, and its flow-control permits returned. */
function cancelAtClaim(sql: SqlStorage, run: RunRow, reason: string, nowMs: number): void {
  moveRun(sql, run, "CANCELLED", reason, nowMs, { due_at_ms: null });
  noteCancelledUncalled(sql, [run.run_id]);
}

/** What a granted claim tells the consumer: everything its call needs. */
function grantedClaim(run: ClaimedRunRow, job: JobHead, nowMs: number): ClaimResult {
  const spec = specOf(job);
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
