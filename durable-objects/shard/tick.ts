// One pass of the timing wheel: fire due jobs, then act on due runs (dispatch, retry, expired
// leases), then hand the dispatchable runs to the queue.
import type { DispatchMessage } from "../../src/shard/protocol";
import { applyFailure } from "./execution";
import { fireDueJob } from "./firing";
import { getJob, type ShardJobRow } from "./job-store";
import { getRun, moveRun, nextFence, type RunRow } from "./run-store";

const JOBS_PER_QUERY = 500;
const MAX_JOBS_PER_TICK = 5_000;
const MAX_RUNS_PER_TICK = 5_000;
/**
 * A run re-sent this many times without ever being claimed is dead-lettered (poison). With the
 * lease doubling on every re-send (capped), that is about 17 minutes at the default 30 s lease.
 */
const MAX_DISPATCHES_PER_ATTEMPT = 8;
const MAX_LEASE_MS = 10 * 60_000;
const SEND_BATCH_SIZE = 100;
const SENDS_IN_PARALLEL = 8;
/** How soon a failed send is tried again. */
const SEND_RETRY_MS = 1_000;

export interface TickSettings {
  shard: number;
  leaseMs: number;
  /** Dispatched-but-unclaimed runs allowed at once: backpressure on a slow consumer. */
  maxUnclaimed: number;
  queue: Queue;
  /** Fault injection (tests only): throw after this many jobs were fired in this pass. */
  throwAfterJobs?: number;
  failSendBatch?: boolean;
  dropDispatches?: boolean;
}

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
  const sent = await dispatchRuns(sql, settings, toDispatch, jobs, nowMs);
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
      if (settings.throwAfterJobs !== undefined && fired >= settings.throwAfterJobs) {
        throw new Error(`fault injected: alarm throws after ${fired} timers`);
      }
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
  const unclaimed = sql
    .exec<{ n: number }>("SELECT COUNT(*) AS n FROM runs WHERE state IN ('ACQUIRED', 'DISPATCHED')")
    .one().n;
  let budget = Math.max(0, settings.maxUnclaimed - unclaimed);
  // Reading 5,000 rows to send a few is what made a backpressured shard busy: read what the
  // budget can send, plus some rows for leases and retries that only change state.
  const runs = sql
    .exec<RunRow>(
      "SELECT * FROM runs WHERE due_at_ms <= ? ORDER BY due_at_ms LIMIT ?",
      nowMs,
      Math.min(MAX_RUNS_PER_TICK, budget + COLLECT_SLACK_ROWS),
    )
    .toArray();
  let backpressured = false;
  const jobs = new Map<string, ShardJobRow | null>();
  const jobOf = (jobId: string) => {
    if (!jobs.has(jobId)) jobs.set(jobId, getJob(sql, jobId));
    return jobs.get(jobId) ?? null;
  };
  const toDispatch: RunRow[] = [];
  for (const run of runs) {
    const job = jobOf(run.job_id);
    switch (run.state) {
      case "RUNNING":
        applyFailure(
          sql,
          job,
          run,
          {
            kind: "retryable",
            status: null,
            error: "no outcome within the run's timeout (lease expired)",
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
        else if (isDispatchable(sql, job, run, nowMs)) {
          toDispatch.push(run);
          budget -= 1;
        }
        break;
      case "RETRYING":
        moveRun(sql, run, "SCHEDULED", "retry due", nowMs, { attempt: run.attempt + 1, dispatch_count: 0 });
        if (budget === 0) backpressured = true;
        else if (isDispatchable(sql, job, run, nowMs)) {
          toDispatch.push(run);
          budget -= 1;
        }
        break;
      case "SCHEDULED":
        if (budget === 0) backpressured = true;
        else if (isDispatchable(sql, job, run, nowMs)) {
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

/** Cancels a due run whose job is gone or paused; true when it may be dispatched. */
function isDispatchable(sql: SqlStorage, job: ShardJobRow | null, run: RunRow, nowMs: number): boolean {
  if (job === null || job.status === "DELETED") {
    moveRun(sql, run, "CANCELLED", "job deleted", nowMs, { due_at_ms: null });
    return false;
  }
  if (job.status === "PAUSED") {
    moveRun(sql, run, "CANCELLED", "job paused", nowMs, { due_at_ms: null });
    return false;
  }
  return true;
}

async function dispatchRuns(
  sql: SqlStorage,
  settings: TickSettings,
  runs: RunRow[],
  jobs: Map<string, ShardJobRow | null>,
  nowMs: number,
): Promise<{ dispatched: number; failed: number }> {
  const messages: DispatchMessage[] = [];
  for (const run of runs) {
    // collectDueRuns already read every job it let through.
    const job = jobs.get(run.job_id) ?? null;
    // A re-send of the same attempt keeps its fence: the first copy to arrive claims it and the
    // other is refused as a duplicate, so a message that was only slow is not wasted. A new
    // attempt (or the first send) takes a new fence, which fences off every older message.
    const resend = run.dispatch_count > 0 && run.fence !== null;
    const fence = resend ? (run.fence as number) : nextFence(sql);
    // Each re-send waits twice as long: a backlog is not mistaken for loss again and again.
    const leaseMs = Math.min(MAX_LEASE_MS, settings.leaseMs * 2 ** run.dispatch_count);
    moveRun(
      sql,
      run,
      "ACQUIRED",
      resend ? "re-sent after its lease expired" : "acquired for dispatch",
      nowMs,
      {
        fence,
        job_version: job?.version ?? run.job_version,
        due_at_ms: nowMs + leaseMs,
        dispatch_count: run.dispatch_count + 1,
      },
    );
    messages.push({
      run_id: run.run_id,
      job_id: run.job_id,
      tenant: run.tenant_id,
      shard: settings.shard,
      scheduled_at: run.scheduled_at_ms,
      attempt: run.attempt,
      fence,
      version: run.job_version,
    });
  }
  const chunks: DispatchMessage[][] = [];
  for (let i = 0; i < messages.length; i += SEND_BATCH_SIZE)
    chunks.push(messages.slice(i, i + SEND_BATCH_SIZE));
  let dispatched = 0;
  let failed = 0;
  for (let i = 0; i < chunks.length; i += SENDS_IN_PARALLEL) {
    const group = chunks.slice(i, i + SENDS_IN_PARALLEL);
    const results = await Promise.allSettled(
      group.map((chunk) => {
        if (settings.failSendBatch) return Promise.reject(new Error("fault injected: sendBatch throws"));
        if (settings.dropDispatches) return Promise.resolve();
        return settings.queue.sendBatch(chunk.map((body) => ({ body, contentType: "json" as const })));
      }),
    );
    const afterSendMs = Date.now();
    results.forEach((result, index) => {
      for (const message of group[index] ?? []) {
        // Re-read: a claim may have raced ahead of this bookkeeping during the await.
        const run = getRun(sql, message.run_id);
        if (run?.state !== "ACQUIRED" || run.fence !== message.fence) continue;
        if (result.status === "fulfilled") {
          moveRun(sql, run, "DISPATCHED", "sent to the dispatch queue", afterSendMs);
          dispatched += 1;
        } else {
          moveRun(sql, run, "SCHEDULED", `queue send failed: ${String(result.reason)}`, afterSendMs, {
            due_at_ms: afterSendMs + SEND_RETRY_MS,
            dispatch_count: run.dispatch_count - 1,
          });
          failed += 1;
        }
      }
    });
  }
  return { dispatched, failed };
}
