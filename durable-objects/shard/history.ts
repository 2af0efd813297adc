// Writes what changed in a shard to D1 in batches, off the dispatch path: run history, statuses the
// shard decided (COMPLETED, PAUSED after failures), and dead letters for the dead-letter queue.
// Everything stays marked in the shard's SQLite until written, so a failure only delays it.
import type { DeadLetterMessage } from "../../src/shard/protocol";
import { getJob, type ShardJobRow, specOf } from "./job-store";
import type { RunRow } from "./run-store";

const RUNS_PER_FLUSH = 2_000;
const RUNS_PER_STATEMENT = 250;
const JOBS_PER_FLUSH = 2_000;
/**
 * A run handed to the execution path (or waiting to retry) is written once it has sat unchanged
 * this long; a run that reached a state with no timer (terminal, or waiting) is written at once;
 * a run still waiting in the wheel (SCHEDULED) is written when it moves on. Most runs finish within
 * a second, so they reach D1 once instead of once per state.
 */
export const IN_FLIGHT_FLUSH_AFTER_MS = 1_000;

// One bound parameter carries a JSON array of rows: D1 allows 100 parameters per statement.
const UPSERT_RUNS_SQL = `
INSERT INTO runs (id, job_id, tenant_id, shard, kind, scheduled_at_ms, idempotency_key, state, attempt,
  max_attempts, fence, job_version, target_status, error, lateness_ms, duration_ms, next_attempt_at_ms,
  events_json, created_at_ms, updated_at_ms)
SELECT json_extract(value, '$.id'), json_extract(value, '$.job_id'), json_extract(value, '$.tenant_id'),
  json_extract(value, '$.shard'), json_extract(value, '$.kind'), json_extract(value, '$.scheduled_at_ms'),
  json_extract(value, '$.idempotency_key'), json_extract(value, '$.state'), json_extract(value, '$.attempt'),
  json_extract(value, '$.max_attempts'), json_extract(value, '$.fence'), json_extract(value, '$.job_version'),
  json_extract(value, '$.target_status'), json_extract(value, '$.error'), json_extract(value, '$.lateness_ms'),
  json_extract(value, '$.duration_ms'), json_extract(value, '$.next_attempt_at_ms'),
  json_extract(value, '$.events_json'), json_extract(value, '$.created_at_ms'), json_extract(value, '$.updated_at_ms')
FROM json_each(?1) WHERE true
ON CONFLICT(id) DO UPDATE SET state = excluded.state, attempt = excluded.attempt,
  max_attempts = excluded.max_attempts, fence = excluded.fence, job_version = excluded.job_version,
  target_status = excluded.target_status, error = excluded.error, lateness_ms = excluded.lateness_ms,
  duration_ms = excluded.duration_ms, next_attempt_at_ms = excluded.next_attempt_at_ms,
  events_json = excluded.events_json, updated_at_ms = excluded.updated_at_ms
WHERE excluded.updated_at_ms >= runs.updated_at_ms`;

export interface FlushSummary {
  runs: number;
  jobs: number;
  deadLetters: number;
  pausedJobs: { jobId: string; tenantId: string; version: number; reason: string }[];
}

export async function flushToD1(sql: SqlStorage, env: Env, shard: number): Promise<FlushSummary> {
  const summary: FlushSummary = { runs: 0, jobs: 0, deadLetters: 0, pausedJobs: [] };
  summary.runs = await flushRuns(sql, env.DB, shard);
  const jobs = await flushJobStatuses(sql, env.DB);
  summary.jobs = jobs.length;
  summary.pausedJobs = jobs
    .filter((job) => job.status === "PAUSED" && job.pause_reason !== null)
    .map((job) => ({
      jobId: job.job_id,
      tenantId: job.tenant_id,
      version: job.version,
      reason: job.pause_reason ?? "",
    }));
  summary.deadLetters = await sendDeadLetters(sql, env.DEAD_LETTER_QUEUE, shard);
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
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += RUNS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + RUNS_PER_STATEMENT).map((run) => ({
      id: run.run_id,
      job_id: run.job_id,
      tenant_id: run.tenant_id,
      shard,
      kind: run.kind,
      scheduled_at_ms: run.scheduled_at_ms,
      idempotency_key: `${run.job_id}:${new Date(run.scheduled_at_ms).toISOString()}`,
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
    }));
    statements.push(db.prepare(UPSERT_RUNS_SQL).bind(JSON.stringify(chunk)));
  }
  await db.batch(statements);
  // Only rows unchanged since they were read are clean now; newer changes flush next time.
  sql.exec(
    `UPDATE runs SET dirty = 0
     FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS rev FROM json_each(?)) AS written
     WHERE runs.run_id = written.id AND runs.rev = written.rev`,
    JSON.stringify(rows.map((run) => [run.run_id, run.rev])),
  );
  return rows.length;
}

async function flushJobStatuses(sql: SqlStorage, db: D1Database): Promise<ShardJobRow[]> {
  const jobs = sql
    .exec<ShardJobRow>("SELECT * FROM jobs WHERE status_dirty = 1 LIMIT ?", JOBS_PER_FLUSH)
    .toArray();
  if (jobs.length === 0) return [];
  const nowMs = Date.now();
  // COMPLETED keeps the version; a shard-side pause bumped it by one. Never resurrect a deletion
  // or overwrite a newer edit that D1 already holds. One statement for all of them: a burst of
  // one-shot jobs completes thousands at once.
  await db
    .prepare(
      `UPDATE jobs SET status = decided.status, version = decided.version, synced_version = decided.version,
         updated_at_ms = ?2
       FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS status,
               json_extract(value, '$[2]') AS version FROM json_each(?1)) AS decided
       WHERE jobs.id = decided.id AND jobs.version IN (decided.version, decided.version - 1)
         AND jobs.status NOT IN ('DELETED')`,
    )
    .bind(JSON.stringify(jobs.map((job) => [job.job_id, job.status, job.version])), nowMs)
    .run();
  sql.exec(
    `UPDATE jobs SET status_dirty = 0
     FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS status FROM json_each(?)) AS written
     WHERE jobs.job_id = written.id AND jobs.status = written.status`,
    JSON.stringify(jobs.map((job) => [job.job_id, job.status])),
  );
  return jobs;
}

async function sendDeadLetters(sql: SqlStorage, queue: Queue, shard: number): Promise<number> {
  const runs = sql.exec<RunRow>("SELECT * FROM runs WHERE dlq_pending = 1 LIMIT 100").toArray();
  if (runs.length === 0) return 0;
  const messages = runs.map((run): DeadLetterMessage => {
    const job = getJob(sql, run.job_id);
    const spec = job ? specOf(job) : null;
    const target = spec?.target ?? null;
    return {
      kind: "dead_letter",
      run_id: run.run_id,
      job_id: run.job_id,
      tenant: run.tenant_id,
      shard,
      scheduled_at: run.scheduled_at_ms,
      attempt: run.attempt,
      reason: (run.dlq_reason ?? "exhausted") as DeadLetterMessage["reason"],
      last_error: run.error,
      target_status: run.target_status,
      payload: {
        method: target?.method ?? "POST",
        url: target?.url ?? "",
        headers: target?.headers ?? {},
        body: target?.body ?? null,
      },
      on_failure: spec?.on_failure ?? null,
    };
  });
  await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const })));
  for (const run of runs) sql.exec("UPDATE runs SET dlq_pending = 0 WHERE run_id = ?", run.run_id);
  return runs.length;
}
