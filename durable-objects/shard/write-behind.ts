// Writes what changed in a shard in batches, off the dispatch path: run history into the shard's
// own history records (./history/records.ts), statuses the shard decided (COMPLETED, PAUSED after
// failures) to D1, and dead letters to the dead-letter queue (./runs/dead-letter-sends.ts).
// Everything stays marked in the shard's SQLite until written, so a failure only delays it.
import { sqlInList, TERMINAL_STATES } from "../../src/core/run-state";
import { type JobStores, jobStores } from "../../src/db/databases";
import { applyShardJobStatusesAcross } from "../../src/db/job-store";
import { recordHistory } from "./history/records";
import type { ShardJobRow } from "./jobs/held-jobs";
import { sendDeadLetters } from "./runs/dead-letter-sends";
import { markRecorded } from "./runs/run-timers";

const RUNS_PER_FLUSH = 2_000;
const JOBS_PER_FLUSH = 2_000;
/**
 * A run handed to the execution path (or waiting to retry) is written once it has sat unchanged
 * this long; a run that reached a state with no timer (terminal, or waiting) is written at once;
 * a run still waiting in the wheel (SCHEDULED) is written when it moves on. Most runs finish within
 * a second, so their history record is written once instead of once per state.
 */
export const IN_FLIGHT_FLUSH_AFTER_MS = 1_000;

export interface WriteBehindSummary {
  runs: number;
  jobs: number;
  deadLetters: number;
  pausedJobs: { jobId: string; tenantId: string; version: number; reason: string }[];
}

/**
 * One write-behind pass: history into the shard's records, job statuses to D1, dead letters out.
 * `backlogged`: the pass left due runs waiting; deferred completions are then looked at only for
 * the jobs whose runs settled since the last pass (every one of them otherwise).
 */
export async function writeBehind(
  sql: SqlStorage,
  env: Env,
  shard: number,
  { backlogged = false }: { backlogged?: boolean } = {},
): Promise<WriteBehindSummary> {
  const summary: WriteBehindSummary = { runs: 0, jobs: 0, deadLetters: 0, pausedJobs: [] };
  const flushed = flushRuns(sql);
  summary.runs = flushed.runs;
  const jobs = await flushJobStatuses(sql, jobStores(env), backlogged ? flushed.settledJobIds : null);
  summary.jobs = jobs.length;
  summary.pausedJobs = jobs
    .filter((job) => job.status === "PAUSED" && job.pause_reason !== null)
    .map((job) => ({
      jobId: job.job_id,
      tenantId: job.tenant_id,
      version: job.version,
      reason: job.pause_reason ?? "",
    }));
  // Never throws for a failed send: the rest of the alarm (pause alerts above all) goes on.
  summary.deadLetters = (await sendDeadLetters(sql, env.DEAD_LETTER_QUEUE, shard, Date.now())).sent;
  return summary;
}

/**
 * Copies the runs that changed into the shard's own history (./history/records.ts): synchronous and
 * local, so nothing can interleave between the copy and clearing the marks.
 */
function flushRuns(sql: SqlStorage): { runs: number; settledJobIds: string[] } {
  // Two queries, each on its partial index (an OR of the two would scan every run).
  const settled = sql
    .exec<{ run_id: string; job_id: string }>(
      "SELECT run_id, job_id FROM runs WHERE dirty = 1 AND due_at_ms IS NULL LIMIT ?",
      RUNS_PER_FLUSH,
    )
    .toArray();
  const rows: { run_id: string }[] = [
    ...settled,
    ...sql
      .exec<{ run_id: string }>(
        "SELECT run_id FROM runs WHERE dirty = 1 AND due_at_ms IS NOT NULL AND state <> 'SCHEDULED' AND updated_at_ms <= ? LIMIT ?",
        Date.now() - IN_FLIGHT_FLUSH_AFTER_MS,
        RUNS_PER_FLUSH - settled.length,
      )
      .toArray(),
  ];
  if (rows.length === 0) return { runs: 0, settledJobIds: [] };
  const runIds = rows.map((run) => run.run_id);
  recordHistory(sql, runIds);
  markRecorded(sql, runIds);
  return { runs: rows.length, settledJobIds: [...new Set(settled.map((run) => run.job_id))] };
}

/**
 * status_dirty = 2: a job that has fired its last instant while a run of it still waits or runs (held
 * back by the window, re-sent after a crash, retrying). Its COMPLETED reaches D1 only once that run
 * has settled, so the job never reads COMPLETED with its last run still to come.
 */
const COMPLETION_DEFERRED = 2;
const LIVE_RUN = `EXISTS (SELECT 1 FROM runs WHERE runs.job_id = jobs.job_id AND runs.state NOT IN ${sqlInList(TERMINAL_STATES)})`;

/**
 * The status_dirty of a job that has just completed: deferred while a run of it lives (a one-shot
 * job's run always does as it fires), so the pass that fires it writes that once instead of the
 * flush moving it there after.
 */
export function completedStatusDirty(sql: SqlStorage, jobId: string): number {
  const live = sql
    .exec<{ live: number }>(`SELECT ${LIVE_RUN} AS live FROM jobs WHERE job_id = ?`, jobId)
    .one().live;
  return live ? COMPLETION_DEFERRED : 1;
}

/**
 * Completions deferred while a run of these jobs lived, whose runs have all settled now: written to
 * D1 by the next write-behind pass. A job with no deferred completion costs one key lookup.
 */
export function releaseDeferredCompletions(sql: SqlStorage, jobIds: readonly string[]): void {
  if (jobIds.length === 0) return;
  sql.exec(
    `UPDATE jobs SET status_dirty = 1
     WHERE job_id IN (SELECT value FROM json_each(?)) AND status_dirty = ? AND NOT ${LIVE_RUN}`,
    JSON.stringify(jobIds),
    COMPLETION_DEFERRED,
  );
}

async function flushJobStatuses(
  sql: SqlStorage,
  stores: JobStores,
  settledJobIds: readonly string[] | null,
): Promise<ShardJobRow[]> {
  // Completions deferred earlier whose last run has settled since: written in this pass. A run
  // settles into a history record (flushRuns), so a backlogged pass looks only at the jobs of the
  // runs it just recorded: looking at every deferred job on each pass of a 20,000-job burst cost
  // 28 µs per run; the next pass with no backlog looks at all of them.
  if (settledJobIds === null) {
    sql.exec(
      `UPDATE jobs SET status_dirty = 1 WHERE status_dirty = ? AND NOT ${LIVE_RUN}`,
      COMPLETION_DEFERRED,
    );
  } else releaseDeferredCompletions(sql, settledJobIds);
  sql.exec(
    `UPDATE jobs SET status_dirty = ? WHERE status_dirty = 1 AND status = 'COMPLETED' AND ${LIVE_RUN}`,
    COMPLETION_DEFERRED,
  );
  const jobs = sql
    .exec<ShardJobRow>("SELECT * FROM jobs WHERE status_dirty = 1 LIMIT ?", JOBS_PER_FLUSH)
    .toArray();
  if (jobs.length === 0) return [];
  await applyShardJobStatusesAcross(
    stores,
    jobs.map((job) => ({ id: job.job_id, status: job.status, version: job.version })),
    Date.now(),
  );
  sql.exec(
    `UPDATE jobs SET status_dirty = 0
     FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS status FROM json_each(?)) AS written
     WHERE jobs.job_id = written.id AND jobs.status = written.status`,
    JSON.stringify(jobs.map((job) => [job.job_id, job.status])),
  );
  return jobs;
}
