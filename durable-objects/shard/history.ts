// Writes what changed in a shard to D1 in batches, off the dispatch path: run history, statuses the
// shard decided (COMPLETED, PAUSED after failures), and dead letters for the dead-letter queue
// (./dead-letters.ts).
// Everything stays marked in the shard's SQLite until written, so a failure only delays it.
import { runIdempotencyKey } from "../../src/core/run-idempotency";
import { type JobStores, jobStores } from "../../src/db/databases";
import { applyShardJobStatusesAcross } from "../../src/db/job-store";
import { type RunRow as HistoryRow, upsertRuns } from "../../src/db/runs";
import { sendDeadLetters } from "./dead-letters";
import type { ShardJobRow } from "./job-store";
import type { RunRow } from "./run-store";

const RUNS_PER_FLUSH = 2_000;
const JOBS_PER_FLUSH = 2_000;
/**
 * A run handed to the execution path (or waiting to retry) is written once it has sat unchanged
 * this long; a run that reached a state with no timer (terminal, or waiting) is written at once;
 * a run still waiting in the wheel (SCHEDULED) is written when it moves on. Most runs finish within
 * a second, so they reach D1 once instead of once per state.
 */
export const IN_FLIGHT_FLUSH_AFTER_MS = 1_000;

export interface FlushSummary {
  runs: number;
  jobs: number;
  deadLetters: number;
  pausedJobs: { jobId: string; tenantId: string; version: number; reason: string }[];
}

export async function flushToD1(sql: SqlStorage, env: Env, shard: number): Promise<FlushSummary> {
  const summary: FlushSummary = { runs: 0, jobs: 0, deadLetters: 0, pausedJobs: [] };
  summary.runs = await flushRuns(sql, env.DB, shard);
  const jobs = await flushJobStatuses(sql, jobStores(env));
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

async function flushRuns(sql: SqlStorage, db: D1Database, shard: number): Promise<number> {
  // Two queries, each on its partial index (an OR of the two would scan every run).
  const settled = sql
    .exec<RunRow>("SELECT * FROM runs WHERE dirty = 1 AND due_at_ms IS NULL LIMIT ?", RUNS_PER_FLUSH)
    .toArray();
  const rows = settled.concat(
    sql
      .exec<RunRow>(
        "SELECT * FROM runs WHERE dirty = 1 AND due_at_ms IS NOT NULL AND state <> 'SCHEDULED' AND updated_at_ms <= ? LIMIT ?",
        Date.now() - IN_FLIGHT_FLUSH_AFTER_MS,
        RUNS_PER_FLUSH - settled.length,
      )
      .toArray(),
  );
  if (rows.length === 0) return 0;
  await upsertRuns(
    db,
    rows.map((run) => historyRowOf(run, shard)),
  );
  // Only rows unchanged since they were read are clean now; newer changes flush next time.
  sql.exec(
    `UPDATE runs SET dirty = 0
     FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS rev FROM json_each(?)) AS written
     WHERE runs.run_id = written.id AND runs.rev = written.rev`,
    JSON.stringify(rows.map((run) => [run.run_id, run.rev])),
  );
  return rows.length;
}

/** A shard's run as its run-history row in D1. */
function historyRowOf(run: RunRow, shard: number): HistoryRow {
  return {
    id: run.run_id,
    job_id: run.job_id,
    tenant_id: run.tenant_id,
    shard,
    kind: run.kind,
    scheduled_at_ms: run.scheduled_at_ms,
    idempotency_key: runIdempotencyKey(run.job_id, run.scheduled_at_ms),
    state: run.state,
    attempt: run.attempt,
    max_attempts: run.max_attempts,
    fence: run.fence,
    job_version: run.job_version,
    target_status: run.target_status,
    error: run.error,
    lateness_ms: run.lateness_ms,
    duration_ms: run.duration_ms,
    next_attempt_at_ms: run.next_attempt_at_ms,
    events_json: run.events_json,
    created_at_ms: run.created_at_ms,
    updated_at_ms: run.updated_at_ms,
    accepted_at_ms: run.accepted_at_ms,
    heartbeat_at_ms: run.heartbeat_at_ms,
    result_json: run.result_json,
  };
}

async function flushJobStatuses(sql: SqlStorage, stores: JobStores): Promise<ShardJobRow[]> {
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
