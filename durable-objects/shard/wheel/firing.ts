// Turning due instants of a job into runs: misfire policy for instants found late, overlap policy
// against runs still in flight, max_runs and the end of the schedule.
import { windowAdmitMs } from "../../../src/core/delivery-window";
import { durationMs } from "../../../src/core/duration";
import { type CompiledExclusions, isExcluded } from "../../../src/core/exclusions";
import { MAX_BUFFERED_RUNS } from "../../../src/core/job-spec";
import { type JobFire, upcomingFires, windowOf, windowSkipReason } from "../../../src/core/job-timeline";
import { misfireDecision, splitLateInstants } from "../../../src/core/misfire";
import { overlapDecision } from "../../../src/core/overlap";
import { overlapWaitReason } from "../../../src/core/run-waits";
import { exclusionsOf, type ShardJobRow, specOf } from "../jobs/held-jobs";
import { countInFlight, insertRun, type RunKind } from "../runs/run-store";
import { completedStatusDirty } from "../write-behind";

/** Instants enumerated in one pass; a longer outage jumps ahead (the rest count as skipped). */
const MAX_INSTANTS_PER_PASS = 10_000;
/** The reason of a SKIPPED run whose instant an exclusion covers (docs/API.md). */
export const EXCLUDED_REASON = "excluded";
/** SKIPPED runs recorded per pass; beyond this only the count is kept (in the last one's reason). */
const MAX_SKIPPED_RECORDS = 100;

export interface FireSummary {
  created: number;
  skipped: number;
}

/**
 * Fires every due instant of an ACTIVE job and advances its timer. `mode: "resume"` treats every
 * due instant as missed (they passed while the job was paused), whatever the grace.
 */
export function fireDueJob(
  sql: SqlStorage,
  job: ShardJobRow,
  nowMs: number,
  mode: "tick" | "resume",
): FireSummary {
  const spec = specOf(job);
  const exclusions = exclusionsOf(job);
  const due: JobFire[] = [];
  let cursor: JobFire | null =
    job.next_scheduled_ms === null || job.next_fire_ms === null
      ? null
      : pendingFire(job, job.next_scheduled_ms, job.next_fire_ms, exclusions);
  while (cursor !== null && cursor.fireAtMs <= nowMs && due.length < MAX_INSTANTS_PER_PASS) {
    due.push(cursor);
    cursor = upcomingFires(spec, job.job_id, cursor.scheduledAtMs, 1, exclusions)[0] ?? null;
  }
  let uncounted = 0;
  if (cursor !== null && cursor.fireAtMs <= nowMs) {
    uncounted = 1;
    cursor = upcomingFires(spec, job.job_id, nowMs, 1, exclusions)[0] ?? null;
  }
  const summary: FireSummary = { created: 0, skipped: recordExcluded(sql, job, due, nowMs) };

  const graceMs = durationMs(spec.misfire.grace);
  const fireAts = due.filter((fire) => !fire.excluded).map((fire) => fire.fireAtMs);
  const { missed } = mode === "resume" ? { missed: fireAts } : splitLateInstants(fireAts, nowMs, graceMs);
  const missedSet = new Set(missed);
  const runnable = due.filter((fire) => !fire.excluded);
  const missedFires = runnable.filter((fire) => missedSet.has(fire.fireAtMs));
  const onTime = runnable.filter((fire) => !missedSet.has(fire.fireAtMs));
  const decision = misfireDecision({
    missedInstantsMs: missedFires.map((fire) => fire.scheduledAtMs),
    policy: spec.misfire,
  });
  const fireSet = new Set(decision.fire);

  const skippedFires = missedFires.filter((fire) => !fireSet.has(fire.scheduledAtMs));
  recordSkipped(sql, job, skippedFires, uncounted, spec.misfire.policy, nowMs);
  summary.skipped += skippedFires.length;

  const missedKind: RunKind = spec.misfire.policy === "catch_up" ? "catch_up" : "schedule";
  const toFire = [
    ...missedFires
      .filter((fire) => fireSet.has(fire.scheduledAtMs))
      .map((fire) => ({
        fire,
        kind: missedKind,
        reason: `misfire ${spec.misfire.policy}: fired late (${missedFires.length} missed)`,
      })),
    ...onTime.map((fire) => ({ fire, kind: "schedule" as RunKind, reason: "due" })),
  ].sort((a, b) => a.fire.scheduledAtMs - b.fire.scheduledAtMs);

  let completed = false;
  for (const { fire, kind, reason } of toFire) {
    if (spec.max_runs !== null && job.run_count >= spec.max_runs) {
      completed = true;
      break;
    }
    const outcome = startRun(sql, job, fire, kind, reason, nowMs);
    if (outcome === "skipped") summary.skipped += 1;
    if (outcome === "created") summary.created += 1;
  }
  if (spec.max_runs !== null && job.run_count >= spec.max_runs) completed = true;
  const next = completed ? null : cursor;
  // A pass that jumped ahead (more than it enumerates) passed over everything up to now.
  job.fired_through_ms = uncounted > 0 ? nowMs : (due.at(-1)?.scheduledAtMs ?? job.fired_through_ms);
  job.next_scheduled_ms = next?.scheduledAtMs ?? null;
  job.next_fire_ms = next?.fireAtMs ?? null;
  if (next === null && job.status === "ACTIVE") {
    job.status = "COMPLETED";
    job.status_dirty = completedStatusDirty(sql, job.job_id);
  }
  // One write for the timer, the count and a completion: this runs once per job per fire.
  sql.exec(
    "UPDATE jobs SET next_scheduled_ms = ?, next_fire_ms = ?, run_count = ?, status = ?, status_dirty = ?, fired_through_ms = ? WHERE job_id = ?",
    job.next_scheduled_ms,
    job.next_fire_ms,
    job.run_count,
    job.status,
    job.status_dirty,
    job.fired_through_ms,
    job.job_id,
  );
  return summary;
}

/**
 * The stored timer as a fire, its exclusion decided now: with the calendars the shard holds now.
 * A delivery window's skip is decided as when the timer was set (it depends only on the spec).
 */
function pendingFire(
  job: ShardJobRow,
  scheduledAtMs: number,
  fireAtMs: number,
  exclusions: CompiledExclusions,
): JobFire {
  if (isExcluded(scheduledAtMs, exclusions)) return { scheduledAtMs, fireAtMs, excluded: true };
  const skipReason = windowSkipReason(specOf(job), job.job_id, scheduledAtMs);
  return skipReason === null
    ? { scheduledAtMs, fireAtMs }
    : { scheduledAtMs, fireAtMs, excluded: true, skipReason };
}

/** Creates one run for an instant, honouring the job's overlap policy. */
export function startRun(
  sql: SqlStorage,
  job: ShardJobRow,
  fire: JobFire,
  kind: RunKind,
  reason: string,
  nowMs: number,
): "created" | "buffered" | "skipped" | "duplicate" {
  const spec = specOf(job);
  let decision: "run" | "skip" | "buffer" = "run";
  if (spec.overlap !== "allow" && kind !== "trigger") {
    const counts = countInFlight(sql, job.job_id);
    decision = overlapDecision({
      policy: spec.overlap,
      inFlightCount: counts.inFlight,
      bufferedCount: counts.buffered,
      maxBuffered: MAX_BUFFERED_RUNS,
    });
  }
  const runId = insertRun(sql, {
    jobId: job.job_id,
    tenantId: job.tenant_id,
    kind,
    scheduledAtMs: fire.scheduledAtMs,
    fireAtMs: fire.fireAtMs,
    maxAttempts: spec.retry.max_attempts,
    jobVersion: job.version,
    state: decision === "skip" ? "SKIPPED" : "SCHEDULED",
    // A run found late, after its window closed, waits for the opening (a manual trigger does not).
    dueAtMs: decision !== "run" ? null : kind === "trigger" ? nowMs : windowAdmitMs(windowOf(spec), nowMs),
    waiting: decision === "buffer" ? "overlap" : null,
    reason:
      decision === "skip"
        ? `overlap ${spec.overlap}: previous run still in flight`
        : decision === "buffer"
          ? overlapWaitReason(spec.overlap)
          : reason,
    nowMs,
  });
  if (runId === null) {
    // The instant's run is already there: queued ahead of its instant (./ahead.ts), or inserted by
    // a pass that died before its one write of the job's timer and count. Either way the instant
    // fires now, so it counts towards max_runs exactly as a new run would.
    if (decision === "run" && (kind === "schedule" || kind === "catch_up")) job.run_count += 1;
    return "duplicate";
  }
  if (decision === "skip") return "skipped";
  // Only the schedule's own instants count towards max_runs; manual triggers and backfills don't.
  if (kind === "schedule" || kind === "catch_up") job.run_count += 1;
  return decision === "buffer" ? "buffered" : "created";
}

/**
 * An instant a calendar or the job's `exclude` covers becomes a SKIPPED run with reason
 * `excluded`, on time or late alike (the misfire policy is for instants that should have run);
 * one outside the delivery window, with reason `outside_window` or `outside_window_folded`.
 */
export function recordExcluded(
  sql: SqlStorage,
  job: ShardJobRow,
  due: readonly JobFire[],
  nowMs: number,
): number {
  let recorded = 0;
  for (const fire of due) {
    if (!fire.excluded) continue;
    if (insertSkippedRun(sql, job, fire, fire.skipReason ?? EXCLUDED_REASON, nowMs) !== null) recorded += 1;
  }
  return recorded;
}

function recordSkipped(
  sql: SqlStorage,
  job: ShardJobRow,
  skipped: JobFire[],
  uncounted: number,
  policy: string,
  nowMs: number,
): void {
  const recorded = skipped.slice(-MAX_SKIPPED_RECORDS);
  const notRecorded = skipped.length - recorded.length;
  recorded.forEach((fire, index) => {
    const last = index === recorded.length - 1;
    const more =
      last && (notRecorded > 0 || uncounted > 0)
        ? ` (${notRecorded} older missed instants not recorded${uncounted > 0 ? ", more beyond the pass limit" : ""})`
        : "";
    insertSkippedRun(sql, job, fire, `misfire ${policy}: instant missed beyond grace${more}`, nowMs);
  });
}

/** A scheduled instant that will not run, recorded as a SKIPPED run with its reason. */
function insertSkippedRun(sql: SqlStorage, job: ShardJobRow, fire: JobFire, reason: string, nowMs: number) {
  return insertRun(sql, {
    jobId: job.job_id,
    tenantId: job.tenant_id,
    kind: "schedule",
    scheduledAtMs: fire.scheduledAtMs,
    fireAtMs: fire.fireAtMs,
    maxAttempts: specOf(job).retry.max_attempts,
    jobVersion: job.version,
    state: "SKIPPED",
    dueAtMs: null,
    waiting: null,
    reason,
    nowMs,
  });
}

export function markCompleted(sql: SqlStorage, job: ShardJobRow): void {
  if (job.status !== "ACTIVE") return;
  job.status = "COMPLETED";
  job.status_dirty = completedStatusDirty(sql, job.job_id);
  sql.exec(
    "UPDATE jobs SET status = 'COMPLETED', status_dirty = ? WHERE job_id = ?",
    job.status_dirty,
    job.job_id,
  );
}
