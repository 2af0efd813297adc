// Dispatch ahead of the instant. A shard knows its runs long before they are due: a job whose next
// instant falls within the lead window has that instant fired now (its run created, its timer
// moved on, as its instant would) and the run sent to the queue now, and the consumer holds it to
// its exact instant (src/delivery/hold.ts) before it claims it here:
//  - only jobs with overlap "allow" go ahead: the other policies decide against the runs in
//    flight at the instant, which are not known earlier;
//  - a job has one instant ahead at a time: its next goes once that one has fired;
//  - a pause, edit, delete or re-derived timer before the instant cancels the run sent ahead (its
//    record says so) and hands the instant back to the job's timer (../runs/cancel-runs.ts): it
//    still runs, at its instant, if the job is resumed before it;
//  - the claim refuses a run whose instant has not come (../runs/claims.ts, `not_due`).
// Runs sent ahead count in the dispatch window (./budget.ts) like any run in flight: a pass sends
// ahead what the window has room for, and while it is full, the instants of tenants still under
// their share of it, so another tenant's flood does not turn a punctual job into one sent at its
// instant behind the flood's queue.

import { fireDueJob } from "../instants/firing";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";

/** Jobs queued ahead in one pass; the rest wait for the next pass (it comes at once when busy). */
export const MAX_AHEAD_JOBS_PER_TICK = 5_000;

/**
 * Jobs of the lead window looked at, at most, for tenants under their share while the window is
 * full: past these the instants fire at the instant, in their share.
 */
export const SHARE_SCAN_ROWS = 512;

/** Fires each job's next instant ahead; returns the runs to send now. */
function queueJobsAhead(state: ShardState, jobs: readonly JobRecord[], nowMs: number, leadMs: number): Run[] {
  const runs: Run[] = [];
  for (const job of jobs) {
    for (const run of fireDueJob(state, job, nowMs, nowMs + leadMs).runs) {
      if (run.state === "SCHEDULED" && run.due_at_ms !== null && run.due_at_ms <= nowMs) runs.push(run);
    }
  }
  return runs;
}

/** The earliest moment a job's next instant should be queued ahead (null: none eligible). */
export function nextAheadMs(state: ShardState, leadMs: number): number | null {
  return leadMs <= 0 ? null : state.jobs.nextAheadMs(leadMs);
}

/** What a pass knows when it queues runs ahead (../wheel/tick.ts). */
export interface AheadPass {
  /** Room left in the dispatch window once this pass's due runs are counted. */
  room: number;
  /** What each tenant may still send ahead (src/core/load/fair-share.ts, shareLeft). */
  shareLeftOf: (tenantId: string) => number;
  /** The jobs this pass fired: their timers just moved, maybe into the lead window. */
  firedJobIds: readonly string[];
}

/**
 * Fires the instants within the lead window: as many as the window has room for, then, while it is
 * full, those of tenants under their share. Among those, the jobs this pass fired are looked at
 * every pass (a job due every second has its next instant in the lead window from the pass after
 * its instant until that instant, less than a second); the whole lead window at most as often as
 * `shareScanDue` allows. Returns the runs to send.
 */
export function queueAheadInPass(
  state: ShardState,
  settings: { leadMs: number; shareScanDue?: (nowMs: number) => boolean },
  nowMs: number,
  pass: AheadPass,
): { jobs: number; runs: Run[]; heldBack: boolean } {
  const { leadMs } = settings;
  if (leadMs <= 0) return { jobs: 0, runs: [], heldBack: false };
  const untilMs = nowMs + leadMs;
  const first =
    pass.room > 0
      ? state.jobs.aheadEligible(nowMs, untilMs, Math.min(pass.room, MAX_AHEAD_JOBS_PER_TICK))
      : [];
  const runs = queueJobsAhead(state, first, nowMs, leadMs);
  let jobs = first.length;
  let heldBack = first.length >= pass.room && aheadWaiting(state, leadMs, nowMs);
  if (heldBack) {
    const taken = new Map<string, number>();
    for (const job of first) taken.set(job.tenant_id, (taken.get(job.tenant_id) ?? 0) + 1);
    const within = (candidates: JobRecord[]) => {
      const chosen: JobRecord[] = [];
      for (const job of candidates) {
        const left = pass.shareLeftOf(job.tenant_id) - (taken.get(job.tenant_id) ?? 0);
        if (left <= 0) continue;
        taken.set(job.tenant_id, (taken.get(job.tenant_id) ?? 0) + 1);
        chosen.push(job);
      }
      runs.push(...queueJobsAhead(state, chosen, nowMs, leadMs));
      jobs += chosen.length;
    };
    if (pass.firedJobIds.length > 0) {
      const fired = new Set(pass.firedJobIds);
      within(
        state.jobs.aheadEligible(nowMs, untilMs, SHARE_SCAN_ROWS).filter((job) => fired.has(job.job_id)),
      );
    }
    if (settings.shareScanDue?.(nowMs) ?? true)
      within(state.jobs.aheadEligible(nowMs, untilMs, SHARE_SCAN_ROWS));
    heldBack = aheadWaiting(state, leadMs, nowMs);
  }
  return { jobs, runs, heldBack };
}

/** Whether a job's next instant is in the lead window and still to be queued ahead. */
function aheadWaiting(state: ShardState, leadMs: number, nowMs: number): boolean {
  const aheadAtMs = nextAheadMs(state, leadMs);
  return aheadAtMs !== null && aheadAtMs <= nowMs && aheadAtMs + leadMs > nowMs;
}
