// One pass of the timing wheel: fire due jobs, then act on due runs (dispatch, retry, expired
// leases), then hand the dispatchable runs to the queue.
import { shareLeft, type TenantDemand, windowAllowances } from "../../../src/core/load/fair-share";
import { sendsAllowed } from "../../../src/core/runs/slow-calls";
import { MAX_AHEAD_JOBS_PER_TICK, queueAheadInPass } from "../dispatch/ahead";
import type { TickSettings } from "../dispatch/pass-settings";
import { dispatchRuns, type SentRun } from "../dispatch/queue-hand-off";
import { admitFlowControlled } from "../flow/flow-admission";
import { fireDueJob } from "../instants/firing";
import { heldByPause, inDispatchWindow, type Run } from "../records/run";
import { expireLapsedLease } from "../runs/leases";
import { slowCallsByTenant } from "../runs/slow-calls";
import type { JobRecord } from "../state/job-book";
import { moveRun, patchRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";
import { readDueRuns } from "./fair-due-runs";

const MAX_JOBS_PER_TICK = 5_000;
const MAX_RUNS_PER_TICK = 5_000;
/**
 * A run re-sent this many times without ever being claimed is dead-lettered (poison). With the
 * lease doubling on every re-send (capped), that is about 17 minutes at the default 30 s lease.
 */
const MAX_DISPATCHES_PER_ATTEMPT = 8;

export interface TickSummary {
  firedJobs: number;
  /** Jobs whose next instant's run was created and sent ahead of it (../dispatch/ahead.ts). */
  queuedAhead: number;
  dispatched: number;
  sendFailures: number;
  more: boolean;
  /** Due runs were left waiting: their tenants' shares of the dispatch window were in use. */
  backpressured: boolean;
  /** The runs delivered to the queue, with their instants: the window measures their queue delay. */
  sent: SentRun[];
}

/** Rows read past the window's room: leases, retries and tenants under their share. */
const COLLECT_SLACK_ROWS = 100;

export async function runTick(
  state: ShardState,
  settings: TickSettings,
  nowMs: number,
): Promise<TickSummary> {
  const summary: TickSummary = {
    firedJobs: 0,
    queuedAhead: 0,
    dispatched: 0,
    sendFailures: 0,
    more: false,
    backpressured: false,
    sent: [],
  };
  const firedJobIds = fireDueJobs(state, settings, nowMs);
  summary.firedJobs = firedJobIds.length;
  if (summary.firedJobs >= MAX_JOBS_PER_TICK) summary.more = true;
  const { toDispatch, backpressured, roomLeft, shareLeftOf } = collectDueRuns(state, settings, nowMs);
  if (toDispatch.length >= MAX_RUNS_PER_TICK) summary.more = true;
  summary.backpressured = backpressured;
  // After collectDueRuns, so the runs created here are sent once, below, not read again there.
  // Inside the window: only as many as it has room for once the due runs are sent; the other
  // jobs' instants fire at the instant, as without dispatch ahead.
  const ahead = queueAheadInPass(state, settings, nowMs, { room: roomLeft, shareLeftOf, firedJobIds });
  summary.queuedAhead = ahead.jobs;
  if (ahead.jobs >= MAX_AHEAD_JOBS_PER_TICK) summary.more = true;
  // Instants in the lead window that the window had no room for wait for room as due runs do:
  // their ahead time has passed, so the alarm would otherwise ring again at once, pass after pass
  // until the instant (a 20,000-job burst spent 3 s of CPU so before its instant).
  if (ahead.heldBack) summary.backpressured = true;
  const toSend = toDispatch.concat(ahead.runs);
  const jobs = jobsOf(state, toSend);
  // Flow control: runs over a key's or their tenant's limits wait (../flow/flow-admission.ts). A
  // run sent ahead takes its permits when it is sent: conservative, never over a limit.
  if (settings.admission !== undefined && toSend.length > 0) state.commit(nowMs);
  const admitted = settings.admission
    ? await admitFlowControlled(state, settings.admission, toSend, jobs, nowMs)
    : toSend;
  // A full window means the queue holds about as much as the consumers can start in its target
  // delay or more: runs sent ahead now go at once rather than a second or two before their instant.
  const queueBusy = summary.backpressured || roomLeft === 0;
  const sent = await dispatchRuns(state, settings, admitted, jobs, nowMs, { queueBusy });
  summary.dispatched = sent.dispatched;
  summary.sent = sent.sent;
  summary.sendFailures = sent.failed;
  return summary;
}

function jobsOf(state: ShardState, runs: readonly Run[]): Map<string, JobRecord | null> {
  const jobs = new Map<string, JobRecord | null>();
  for (const run of runs) if (!jobs.has(run.job_id)) jobs.set(run.job_id, state.jobs.get(run.job_id) ?? null);
  return jobs;
}

/** Fires the due jobs; returns their ids. */
function fireDueJobs(state: ShardState, settings: TickSettings, nowMs: number): string[] {
  const fired: string[] = [];
  for (const job of state.jobs.due(nowMs, MAX_JOBS_PER_TICK)) {
    settings.beforeFire?.(fired.length);
    fireDueJob(state, job, nowMs);
    fired.push(job.job_id);
  }
  return fired;
}

/** Whether a due run of this state becomes a send (the rest only change state). */
function wantsSend(run: Run): boolean {
  switch (run.state) {
    case "ACQUIRED":
    case "DISPATCHED":
      return run.dispatch_count < MAX_DISPATCHES_PER_ATTEMPT;
    case "RETRYING":
    case "SCHEDULED":
      return true;
    default:
      return false;
  }
}

/**
 * The runs to send in this pass: each tenant's allowance of the window (src/core/load/fair-share.ts),
 * spent on its runs in the order read. Returns the picked run ids and the room the window has
 * left for runs sent ahead.
 */
function pickSends(
  state: ShardState,
  settings: TickSettings,
  runs: Run[],
  inFlight: Map<string, number>,
  nowMs: number,
): { picked: Set<string>; roomLeft: number; shareLeftOf: (tenantId: string) => number; heldBack: boolean } {
  const due = new Map<string, number>();
  for (const run of runs) if (wantsSend(run)) due.set(run.tenant_id, (due.get(run.tenant_id) ?? 0) + 1);
  const tenants = new Set([...due.keys(), ...inFlight.keys()]);
  const weightOf = (tenantId: string) => settings.tenantWeight?.(tenantId) ?? 1;
  const demands: TenantDemand[] = [...tenants].map((tenantId) => ({
    tenantId,
    inFlight: inFlight.get(tenantId) ?? 0,
    due: due.get(tenantId) ?? 0,
    weight: weightOf(tenantId),
  }));
  const allowances = windowAllowances(settings.window, demands);
  const slowTenants = capSlowTenants(state, settings, allowances, inFlight, nowMs);
  const picked = new Set<string>();
  const sending = new Map<string, number>();
  let heldBack = false;
  for (const run of runs) {
    if (!wantsSend(run)) continue;
    const left = allowances.get(run.tenant_id) ?? 0;
    if (left <= 0) {
      heldBack = true;
      continue;
    }
    allowances.set(run.tenant_id, left - 1);
    picked.add(run.run_id);
    sending.set(run.tenant_id, (sending.get(run.tenant_id) ?? 0) + 1);
  }
  let inUse = picked.size;
  for (const count of inFlight.values()) inUse += count;
  // A tenant whose calls hang sends nothing ahead: its slots are for the runs already due.
  const shareOf = shareLeft(settings.window, demands, sending, weightOf);
  const shareLeftOf = (tenantId: string) => (slowTenants.has(tenantId) ? 0 : shareOf(tenantId));
  return { picked, roomLeft: Math.max(0, settings.window - inUse), shareLeftOf, heldBack };
}

/**
 * A tenant whose calls hang keeps only a few runs in flight here (src/core/runs/slow-calls.ts).
 * Returns the tenants with slow calls.
 */
function capSlowTenants(
  state: ShardState,
  settings: TickSettings,
  allowances: Map<string, number>,
  inFlight: ReadonlyMap<string, number>,
  nowMs: number,
): Set<string> {
  const slowTenants = new Set<string>();
  for (const [tenantId, slowCalls] of slowCallsByTenant(state, nowMs)) {
    slowTenants.add(tenantId);
    const allowance = allowances.get(tenantId);
    if (allowance === undefined || allowance === 0) continue;
    const tenant = { allowance, inFlight: inFlight.get(tenantId) ?? 0, slowCalls };
    allowances.set(tenantId, sendsAllowed(tenant, settings.slowTenantInFlight));
  }
  return slowTenants;
}

/**
 * Runs in the window, per tenant, whose lease holds: the book's counts less the runs in the window
 * found due (their lease expired: presumed lost, and this pass moves them on).
 */
function inFlightNow(state: ShardState, due: readonly Run[]): Map<string, number> {
  const inFlight = new Map(state.runs.windowCounts());
  for (const run of due) {
    if (!inDispatchWindow(run)) continue;
    const count = (inFlight.get(run.tenant_id) ?? 0) - 1;
    if (count > 0) inFlight.set(run.tenant_id, count);
    else inFlight.delete(run.tenant_id);
  }
  return inFlight;
}

/**
 * Moves due runs along; returns the ones to send now, each tenant's bounded by its share of the
 * dispatch window (../dispatch/budget.ts), and the room left in the window for runs sent ahead.
 */
function collectDueRuns(
  state: ShardState,
  settings: TickSettings,
  nowMs: number,
): {
  toDispatch: Run[];
  backpressured: boolean;
  roomLeft: number;
  /** What each tenant may still send ahead of its instants (src/core/load/fair-share.ts, shareLeft). */
  shareLeftOf: (tenantId: string) => number;
} {
  // Reading every due run to send a few is what made a backpressured shard busy: read about what
  // the window can hold (runs in it whose lease expired are among the due ones, and make room),
  // plus some for leases and retries that only change state, and for the tenants under their
  // share (fair-share.ts reads every tenant with work due its share).
  const due = readDueRuns(state, nowMs, Math.min(MAX_RUNS_PER_TICK, settings.window + COLLECT_SLACK_ROWS));
  const inFlight = inFlightNow(state, due);
  const { picked, roomLeft, shareLeftOf, heldBack } = pickSends(state, settings, due, inFlight, nowMs);
  const toDispatch: Run[] = [];
  const sendIfPicked = (run: Run) => {
    if (picked.has(run.run_id) && isDispatchable(state, run, nowMs)) toDispatch.push(run);
  };
  for (const run of due) {
    switch (run.state) {
      case "RUNNING":
        expireLapsedLease(state, run, nowMs);
        break;
      case "ACQUIRED":
      case "DISPATCHED":
        if (run.dispatch_count >= MAX_DISPATCHES_PER_ATTEMPT) {
          moveRun(
            state,
            run,
            "DEAD_LETTERED",
            `never claimed after ${run.dispatch_count} dispatches`,
            nowMs,
            {
              due_at_ms: null,
              dlq_pending: 1,
              dlq_reason: "lease_expired",
            },
          );
          break;
        }
        moveRun(state, run, "SCHEDULED", "dispatch lease expired before a claim", nowMs);
        sendIfPicked(run);
        break;
      case "RETRYING":
        moveRun(state, run, "SCHEDULED", "retry due", nowMs, { attempt: run.attempt + 1, dispatch_count: 0 });
        sendIfPicked(run);
        break;
      case "SCHEDULED":
        sendIfPicked(run);
        break;
      default:
        // A run in a final state with a timer left over: cleared so it never comes back.
        patchRun(state, run, nowMs, { due_at_ms: null });
    }
  }
  return { toDispatch, backpressured: heldBack, roomLeft, shareLeftOf };
}

/** Cancels a due run whose job is gone or paused (see heldByPause); true when it may be dispatched. */
function isDispatchable(state: ShardState, run: Run, nowMs: number): boolean {
  const job = state.jobs.get(run.job_id);
  if (job === undefined || job.status === "DELETED") {
    moveRun(state, run, "CANCELLED", "job deleted", nowMs, { due_at_ms: null });
    return false;
  }
  if (heldByPause(job.status, run)) {
    moveRun(state, run, "CANCELLED", "job paused", nowMs, { due_at_ms: null });
    return false;
  }
  return true;
}
