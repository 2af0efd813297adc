// Turning due instants of a job into runs: misfire policy for instants found late, overlap policy
// against runs still in flight, max_runs and the end of the schedule. A pause or a suspension is
// an outage like any other: its instants within the grace still fire, older ones follow the
// misfire policy.

import { durationMs } from "../../../src/core/common/duration";
import { impliedEndMs } from "../../../src/core/jobs/job-end";
import { MAX_BUFFERED_RUNS } from "../../../src/core/jobs/job-spec";
import { type JobFire, upcomingFires, windowOf, windowSkipReason } from "../../../src/core/jobs/job-timeline";
import { overlapWaitReason } from "../../../src/core/load/run-waits";
import { overlapDecision } from "../../../src/core/runs/overlap";
import { UNFINISHED_STATES } from "../../../src/core/runs/run-state";
import { windowAdmitMs } from "../../../src/core/schedules/delivery-window";
import { type CompiledExclusions, isExcluded } from "../../../src/core/schedules/exclusions";
import { misfireDecision, splitLateInstants } from "../../../src/core/schedules/misfire";
import { instantTaken } from "../history/run-lookups";
import { jobExclusions, jobSpec } from "../jobs/job-specs";
import type { Run, RunKind } from "../records/run";
import { aheadFree, type JobRecord } from "../state/job-book";
import { insertRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { MAX_DISPATCH_LEAD_MS } from "./dispatch-lead";
import { recordExcluded, recordSkipped } from "./skipped-runs";

/** Instants enumerated in one pass; a longer outage jumps ahead (the rest count as skipped). */
const MAX_INSTANTS_PER_PASS = 10_000;
/** The first event of a run created ahead of its instant (../dispatch/ahead.ts). */
export const AHEAD_REASON = "due (queued ahead of its instant)";

export interface FireSummary {
  created: number;
  skipped: number;
  /** The runs created to go out now or ahead (their instant's time may not have come yet). */
  runs: Run[];
}

const UNFINISHED = new Set<string>(UNFINISHED_STATES);

/** The job's runs in progress (not waiting on its overlap buffer) and those waiting there. */
export function countInFlight(state: ShardState, jobId: string): { inFlight: number; buffered: number } {
  let inFlight = 0;
  let buffered = 0;
  for (const run of state.runs.ofJob(jobId)) {
    if (!UNFINISHED.has(run.state)) continue;
    if (run.waiting === "overlap") buffered += 1;
    else inFlight += 1;
  }
  return { inFlight, buffered };
}

/**
 * Fires every instant of an ACTIVE job whose time has come and advances its timer. With
 * `aheadUntilMs` (the end of the dispatch lead window), also its next instant if it falls before
 * that and the job has no other run waiting ahead of its instant: that run goes out now and the
 * consumer holds it to its instant (../dispatch/ahead.ts).
 */
export function fireDueJob(
  state: ShardState,
  job: JobRecord,
  nowMs: number,
  aheadUntilMs?: number,
): FireSummary {
  const spec = jobSpec(state, job);
  const exclusions = jobExclusions(state, job);
  const due: JobFire[] = [];
  const after = (fire: JobFire) =>
    upcomingFires(spec, job.job_id, fire.scheduledAtMs, 1, exclusions)[0] ?? null;
  let cursor: JobFire | null =
    job.next_scheduled_ms === null || job.next_fire_ms === null
      ? null
      : pendingFire(state, job, job.next_scheduled_ms, job.next_fire_ms, exclusions);
  while (cursor !== null && cursor.fireAtMs <= nowMs && due.length < MAX_INSTANTS_PER_PASS) {
    // An instant the job handled already (its timer set back behind it) never fires twice.
    if (job.fired_through_ms === null || cursor.scheduledAtMs > job.fired_through_ms) due.push(cursor);
    cursor = after(cursor);
  }
  let uncounted = 0;
  if (cursor !== null && cursor.fireAtMs <= nowMs) {
    uncounted = 1;
    cursor = upcomingFires(spec, job.job_id, nowMs, 1, exclusions)[0] ?? null;
  }
  if (
    aheadUntilMs !== undefined &&
    cursor !== null &&
    cursor.fireAtMs <= aheadUntilMs &&
    aheadFree(job, nowMs)
  ) {
    if (cursor.excluded) {
      // Recorded at its instant, as always: until then the job is not looked at again.
      job.ahead_fire_ms = cursor.fireAtMs;
    } else {
      due.push(cursor);
      cursor = after(cursor);
    }
  }
  const summary: FireSummary = { created: 0, skipped: recordExcluded(state, job, due, nowMs), runs: [] };

  const graceMs = durationMs(spec.misfire.grace);
  const runnable = due.filter((fire) => !fire.excluded);
  const { missed } = splitLateInstants(
    runnable.map((fire) => fire.fireAtMs),
    nowMs,
    graceMs,
  );
  const missedSet = new Set(missed);
  const missedFires = runnable.filter((fire) => missedSet.has(fire.fireAtMs));
  const onTime = runnable.filter((fire) => !missedSet.has(fire.fireAtMs));
  const decision = misfireDecision({
    missedInstantsMs: missedFires.map((fire) => fire.scheduledAtMs),
    policy: spec.misfire,
  });
  const fireSet = new Set(decision.fire);
  const skippedFires = missedFires.filter((fire) => !fireSet.has(fire.scheduledAtMs));
  recordSkipped(state, job, skippedFires, uncounted, spec.misfire.policy, nowMs);
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
    ...onTime.map((fire) => ({
      fire,
      kind: "schedule" as RunKind,
      reason: fire.fireAtMs > nowMs ? AHEAD_REASON : "due",
    })),
  ].sort((a, b) => a.fire.scheduledAtMs - b.fire.scheduledAtMs);

  let completed = false;
  for (const { fire, kind, reason } of toFire) {
    if (spec.max_runs !== null && job.run_count >= spec.max_runs) {
      completed = true;
      break;
    }
    const started = startRun(state, job, fire, kind, reason, nowMs);
    if (started.outcome === "skipped") summary.skipped += 1;
    if (started.outcome === "created") summary.created += 1;
    if (started.run !== null && started.outcome !== "skipped") summary.runs.push(started.run);
    if (started.run !== null && fire.fireAtMs > nowMs) job.ahead_fire_ms = fire.fireAtMs;
  }
  if (spec.max_runs !== null && job.run_count >= spec.max_runs) completed = true;
  const next = completed ? null : cursor;
  // A pass that jumped ahead (more than it enumerates) passed over everything up to now.
  job.fired_through_ms = uncounted > 0 ? nowMs : (due.at(-1)?.scheduledAtMs ?? job.fired_through_ms);
  job.next_scheduled_ms = next?.scheduledAtMs ?? null;
  job.next_fire_ms = next?.fireAtMs ?? null;
  if (next === null && job.status === "ACTIVE") {
    job.status = "COMPLETED";
    job.status_dirty = completedStatusDirty(state, job, nowMs);
  }
  state.touchJob(job);
  return summary;
}

/**
 * The stored timer as a fire, its exclusion decided now: with the calendars the shard holds now.
 * A delivery window's skip is decided as when the timer was set (it depends only on the spec).
 */
function pendingFire(
  state: ShardState,
  job: JobRecord,
  scheduledAtMs: number,
  fireAtMs: number,
  exclusions: CompiledExclusions,
): JobFire {
  if (isExcluded(scheduledAtMs, exclusions)) return { scheduledAtMs, fireAtMs, excluded: true };
  const skipReason = windowSkipReason(jobSpec(state, job), job.job_id, scheduledAtMs);
  return skipReason === null
    ? { scheduledAtMs, fireAtMs }
    : { scheduledAtMs, fireAtMs, excluded: true, skipReason };
}

export type StartOutcome = "created" | "buffered" | "skipped" | "duplicate";

/** Creates one run for an instant, honouring the job's overlap policy. */
export function startRun(
  state: ShardState,
  job: JobRecord,
  fire: JobFire,
  kind: RunKind,
  reason: string,
  nowMs: number,
): { outcome: StartOutcome; run: Run | null } {
  const spec = jobSpec(state, job);
  let decision: "run" | "skip" | "buffer" = "run";
  if (spec.overlap !== "allow" && kind !== "trigger") {
    const counts = countInFlight(state, job.job_id);
    decision = overlapDecision({
      policy: spec.overlap,
      inFlightCount: counts.inFlight,
      bufferedCount: counts.buffered,
      maxBuffered: MAX_BUFFERED_RUNS,
    });
  }
  // A schedule's instant is fired once, by its timer: only an operator's instant (a trigger, a
  // backfill) can name one that already ran, and its history is read to tell.
  const checkHistory = kind === "trigger" || kind === "backfill";
  const run = insertRun(
    state,
    {
      jobId: job.job_id,
      tenantId: job.tenant_id,
      kind,
      scheduledAtMs: fire.scheduledAtMs,
      fireAtMs: fire.fireAtMs,
      maxAttempts: spec.retry.max_attempts,
      jobVersion: job.version,
      priority: job.priority,
      state: decision === "skip" ? "SKIPPED" : "SCHEDULED",
      // A run found late, after its window closed, waits for the opening (a manual trigger does
      // not); one sent ahead is due now (the pass that made it sends it).
      dueAtMs:
        decision !== "run"
          ? null
          : kind === "trigger"
            ? nowMs
            : windowAdmitMs(windowOf(spec), Math.min(nowMs, fire.fireAtMs)),
      waiting: decision === "buffer" ? "overlap" : null,
      reason:
        decision === "skip"
          ? `overlap ${spec.overlap}: previous run still in flight`
          : decision === "buffer"
            ? overlapWaitReason(spec.overlap)
            : reason,
      nowMs,
    },
    checkHistory ? (runId) => instantTaken(state, job, runId, fire.scheduledAtMs) : undefined,
  );
  if (run === null) return { outcome: "duplicate", run: null };
  if (decision === "skip") return { outcome: "skipped", run };
  // Only the schedule's own instants count towards max_runs; manual triggers and backfills don't.
  if (kind === "schedule" || kind === "catch_up") job.run_count += 1;
  return { outcome: decision === "buffer" ? "buffered" : "created", run };
}

/**
 * status_dirty of a job that has just completed: 0 when D1 reads it COMPLETED on its own from its
 * end (src/core/jobs/job-end.ts) within the dispatch lead of now (its last instant went out ahead);
 * else 2 (deferred) while a run of it lives, so its COMPLETED reaches D1 only once that run has
 * settled (../write-behind.ts), or 1.
 */
export function completedStatusDirty(state: ShardState, job: JobRecord, nowMs: number): number {
  if (job.completion_implied) {
    const endMs = impliedEndMs(jobSpec(state, job));
    if (endMs !== null && endMs <= nowMs + MAX_DISPATCH_LEAD_MS) return 0;
  }
  return state.runs.ofJob(job.job_id).length > 0 ? 2 : 1;
}

export function markCompleted(state: ShardState, job: JobRecord, nowMs: number): void {
  if (job.status !== "ACTIVE") return;
  job.status = "COMPLETED";
  job.status_dirty = completedStatusDirty(state, job, nowMs);
  state.touchJob(job);
}
