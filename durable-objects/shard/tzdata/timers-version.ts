// Which tz database this shard's timers were computed with, and re-deriving them, in bounded
// batches, when the runtime brings another one (a deploy with new zone rules).
import type { TzdataProgress } from "../../../src/shard/protocol";
import type { ShardState } from "../state/shard-state";
import { recomputeNextFire } from "../wheel/recompute";

/** Jobs re-derived per alarm: a batch of ~1 ms each keeps the alarm short next to firing. */
export const REDERIVE_BATCH_JOBS = 500;

type TzdataRow = {
  timers_version: string | null;
  target_version: string | null;
  cursor_job_id: string | null;
  jobs_done: number;
  jobs_changed: number;
  started_at_ms: number | null;
  finished_at_ms: number | null;
};

function readRow(sql: SqlStorage): TzdataRow {
  return sql.exec<TzdataRow>("SELECT * FROM tzdata WHERE id = 1").one();
}

/**
 * Compares the runtime's tz database with the one the timers were computed with; on a difference,
 * starts (or restarts) a re-derivation towards it. Returns whether one is in progress.
 * A shard seeing its first version records it as is: its timers were just computed with it.
 */
export function observeTzdata(sql: SqlStorage, runtimeVersion: string, nowMs: number): boolean {
  const row = readRow(sql);
  if (row.timers_version === null && row.target_version === null) {
    sql.exec("UPDATE tzdata SET timers_version = ? WHERE id = 1", runtimeVersion);
    return false;
  }
  const goal = row.target_version ?? row.timers_version;
  if (goal === runtimeVersion) return row.target_version !== null;
  // A new version, or another one mid-way (a rollback): every job again, from the start.
  sql.exec(
    `UPDATE tzdata SET target_version = ?, cursor_job_id = '', jobs_done = 0, jobs_changed = 0,
       started_at_ms = ?, finished_at_ms = NULL WHERE id = 1`,
    runtimeVersion,
    nowMs,
  );
  return true;
}

/**
 * Re-derives the next batch of jobs (in job_id order) and records the new version once none is
 * left. Returns whether jobs remain. Jobs created meanwhile already use the new rules; re-deriving
 * them again changes nothing.
 */
export function rederiveBatch(state: ShardState, nowMs: number, batchJobs = REDERIVE_BATCH_JOBS): boolean {
  const { sql } = state;
  const row = readRow(sql);
  if (row.target_version === null) return false;
  // One job past the batch says whether another pass is needed (no empty last pass).
  const cursor = row.cursor_job_id ?? "";
  const ids = [...state.jobs.all()]
    .map((job) => job.job_id)
    .filter((jobId) => jobId > cursor)
    .sort()
    .slice(0, batchJobs + 1);
  const jobs = ids.slice(0, batchJobs).flatMap((jobId) => {
    const job = state.jobs.get(jobId);
    return job === undefined ? [] : [job];
  });
  let changed = 0;
  for (const job of jobs) if (recomputeNextFire(state, job, nowMs) === "changed") changed += 1;
  const last = jobs.at(-1);
  if (ids.length > batchJobs && last) {
    sql.exec(
      "UPDATE tzdata SET cursor_job_id = ?, jobs_done = jobs_done + ?, jobs_changed = jobs_changed + ? WHERE id = 1",
      last.job_id,
      jobs.length,
      changed,
    );
    return true;
  }
  sql.exec(
    `UPDATE tzdata SET timers_version = target_version, target_version = NULL, cursor_job_id = NULL,
       jobs_done = jobs_done + ?, jobs_changed = jobs_changed + ?, finished_at_ms = ? WHERE id = 1`,
    jobs.length,
    changed,
    nowMs,
  );
  return false;
}

/** What an admin sees of this shard: its timers' version and any re-derivation in progress. */
export function tzdataProgress(state: ShardState, shard: number): TzdataProgress {
  const row = readRow(state.sql);
  const jobsTotal = state.jobs.size;
  return {
    shard,
    timersVersion: row.timers_version,
    rederivingTo: row.target_version,
    jobsDone: row.jobs_done,
    jobsChanged: row.jobs_changed,
    jobsTotal,
    startedAtMs: row.started_at_ms,
    finishedAtMs: row.finished_at_ms,
  };
}
