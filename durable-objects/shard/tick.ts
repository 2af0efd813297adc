// One pass of the timing wheel: fire due jobs, then act on due runs (dispatch, retry, expired
// leases), then hand the dispatchable runs to the queue.
import { budgetLeft } from "./budget";
import { dispatchRuns } from "./dispatch";
import { applyFailure } from "./execution";
import { readDueRuns } from "./fair-share";
import { fireDueJob } from "./firing";
import { admitFlowControlled } from "./flow-admission";
import { getJob, getJobs, type ShardJobRow } from "./job-store";
import { heldByPause, moveRun, type RunRow } from "./run-store";
import type { TickSettings } from "./settings";

const JOBS_PER_QUERY = 500;
const MAX_JOBS_PER_TICK = 5_000;
const MAX_RUNS_PER_TICK = 5_000;
/**
 * A run re-sent this many times without ever being claimed is dead-lettered (poison). With the
 * lease doubling on every re-send (capped), that is about 17 minutes at the default 30 s lease.
 */
const MAX_DISPATCHES_PER_ATTEMPT = 8;

export interface TickSummary {
  firedJobs: number;
  dispatched: number;
  sendFailures: number;
  more: boolean;
  /** Due runs were left waiting because the unclaimed budget was spent. */
  backpressured: boolean;
}

/** Rows read past the budget: expired leases and retries that need a state change, not a send. */
const COLLECT_SLACK_ROWS = 100;

export async function runTick(sql: SqlStorage, settings: TickSettings, nowMs: number): Promise<TickSummary> {
  const summary: TickSummary = {
    firedJobs: 0,
    dispatched: 0,
    sendFailures: 0,
    more: false,
    backpressured: false,
  };
  summary.firedJobs = fireDueJobs(sql, settings, nowMs);
  if (summary.firedJobs >= MAX_JOBS_PER_TICK) summary.more = true;
  const { toDispatch, backpressured, jobs } = collectDueRuns(sql, settings, nowMs);
  if (toDispatch.length >= MAX_RUNS_PER_TICK) summary.more = true;
  summary.backpressured = backpressured;
  // Flow control: runs over a key's or their tenant's limits wait (flow-admission.ts).
  const admitted = settings.admission
    ? await admitFlowControlled(sql, settings.admission, toDispatch, jobs, nowMs)
    : toDispatch;
  const sent = await dispatchRuns(sql, settings, admitted, jobs, nowMs);
  summary.dispatched = sent.dispatched;
  summary.sendFailures = sent.failed;
  return summary;
}

function fireDueJobs(sql: SqlStorage, settings: TickSettings, nowMs: number): number {
  let fired = 0;
  while (fired < MAX_JOBS_PER_TICK) {
    const jobs = sql
      .exec<ShardJobRow>(
        "SELECT * FROM jobs WHERE status = 'ACTIVE' AND next_fire_ms <= ? ORDER BY next_fire_ms LIMIT ?",
        nowMs,
        JOBS_PER_QUERY,
      )
      .toArray();
    if (jobs.length === 0) break;
    for (const job of jobs) {
      settings.beforeFire?.(fired);
      fireDueJob(sql, job, nowMs, "tick");
      fired += 1;
    }
  }
  return fired;
}

/** Moves due runs along; returns the ones to send now, bounded by the unclaimed budget. */
function collectDueRuns(
  sql: SqlStorage,
  settings: TickSettings,
  nowMs: number,
): { toDispatch: RunRow[]; backpressured: boolean; jobs: Map<string, ShardJobRow | null> } {
  let budget = budgetLeft(sql, settings.maxUnclaimed);
  // Reading 5,000 rows to send a few is what made a backpressured shard busy: read what the
  // budget can send, plus some rows for leases and retries that only change state.
  // Fair share: in round-robin order across tenants, so the budget is spent fairly (fair-share.ts).
  const runs = readDueRuns(sql, nowMs, Math.min(MAX_RUNS_PER_TICK, budget + COLLECT_SLACK_ROWS));
  let backpressured = false;
  // With budget to spend, most rows will be sent: read their jobs in one statement.
  const jobs = new Map<string, ShardJobRow | null>(
    budget > 0
      ? getJobs(
          sql,
          runs.map((run) => run.job_id),
        )
      : [],
  );
  const jobOf = (jobId: string) => {
    if (!jobs.has(jobId)) jobs.set(jobId, getJob(sql, jobId));
    return jobs.get(jobId) ?? null;
  };
  const toDispatch: RunRow[] = [];
  for (const run of runs) {
    // The job is read only for a run that will be acted on: under backpressure most due rows are
    // SCHEDULED runs left waiting, and reading their jobs on every pass was a fifth of a burst's CPU.
    switch (run.state) {
      case "RUNNING":
        applyFailure(
          sql,
          jobOf(run.job_id),
          run,
          {
            kind: "retryable",
            status: null,
            // A long-running target's lease is its heartbeat timeout, renewed by each heartbeat.
            error:
              run.accepted_at_ms === null
                ? "no outcome within the run's timeout (lease expired)"
                : "no heartbeat or completion within the job's heartbeat_timeout (lease expired)",
            retryAfterMs: null,
            durationMs: 0,
          },
          nowMs,
        );
        break;
      case "ACQUIRED":
      case "DISPATCHED":
        if (run.dispatch_count >= MAX_DISPATCHES_PER_ATTEMPT) {
          moveRun(sql, run, "DEAD_LETTERED", `never claimed after ${run.dispatch_count} dispatches`, nowMs, {
            due_at_ms: null,
            dlq_pending: 1,
            dlq_reason: "lease_expired",
          });
          break;
        }
        moveRun(sql, run, "SCHEDULED", "dispatch lease expired before a claim", nowMs);
        if (budget === 0) backpressured = true;
        else if (isDispatchable(sql, jobOf(run.job_id), run, nowMs)) {
          toDispatch.push(run);
          budget -= 1;
        }
        break;
      case "RETRYING":
        moveRun(sql, run, "SCHEDULED", "retry due", nowMs, { attempt: run.attempt + 1, dispatch_count: 0 });
        if (budget === 0) backpressured = true;
        else if (isDispatchable(sql, jobOf(run.job_id), run, nowMs)) {
          toDispatch.push(run);
          budget -= 1;
        }
        break;
      case "SCHEDULED":
        if (budget === 0) backpressured = true;
        else if (isDispatchable(sql, jobOf(run.job_id), run, nowMs)) {
          toDispatch.push(run);
          budget -= 1;
        }
        break;
      default:
        // A terminal run with a timer left over: clear it so it never comes back.
        sql.exec("UPDATE runs SET due_at_ms = NULL WHERE run_id = ?", run.run_id);
    }
  }
  return { toDispatch, backpressured, jobs };
}

/** Cancels a due run whose job is gone or paused (see heldByPause); true when it may be dispatched. */
function isDispatchable(sql: SqlStorage, job: ShardJobRow | null, run: RunRow, nowMs: number): boolean {
  if (job === null || job.status === "DELETED") {
    moveRun(sql, run, "CANCELLED", "job deleted", nowMs, { due_at_ms: null });
    return false;
  }
  if (heldByPause(job.status, run)) {
    moveRun(sql, run, "CANCELLED", "job paused", nowMs, { due_at_ms: null });
    return false;
  }
  return true;
}
