// For tests only: the shard's state as the tables of schema v23 held it (runs: the live runs and,
// as v23 kept them a day, the settled runs that did not succeed; the jobs' timing columns;
// run_history: every settled run), so a test can read it with SQL as it reads any other table. The rows
// exist only while `read` runs: they are written, read and deleted in one synchronous step, so no
// other request (nor a restart) ever sees them. The product never calls this.
import { runIdFor } from "../../src/core/runs/run-id";
import { HISTORY_COLUMNS } from "./history/legacy-records";
import { type pageRecordOf, storedRecordOfPage } from "./records/page-records";
import { runOfRow } from "./state/restore";
import type { ShardState } from "./state/shard-state";
import { readLegacyJobs, readLegacyRuns } from "./store/legacy-state";

const RUN_COLUMNS = [
  "run_id",
  "job_id",
  "tenant_id",
  "kind",
  "scheduled_at_ms",
  "fire_at_ms",
  "state",
  "attempt",
  "max_attempts",
  "fence",
  "job_version",
  "due_at_ms",
  "waiting",
  "dispatch_count",
  "target_status",
  "error",
  "lateness_ms",
  "duration_ms",
  "next_attempt_at_ms",
  "events_json",
  "created_at_ms",
  "updated_at_ms",
  "rev",
  "dlq_pending",
  "dlq_reason",
  "dlq_send_failures",
  "dlq_retry_at_ms",
  "manual",
  "accepted_at_ms",
  "heartbeat_at_ms",
  "result_json",
  "priority",
  "flow_gate",
  "held_ms",
  "held_by",
  "slow_since_ms",
  "triggers_folded",
] as const;

const JOB_TIMING = [
  "status",
  "version",
  "next_scheduled_ms",
  "next_fire_ms",
  "run_count",
  "consecutive_failures",
  "paused_at_ms",
  "pause_reason",
  "status_dirty",
  "last_missed_alert_ms",
  "fired_through_ms",
  "calendars_revision",
] as const;

function insertAll(sql: SqlStorage, table: string, columns: readonly string[], rows: unknown[][]): void {
  if (rows.length === 0) return;
  const values = columns.map((_, index) => `json_extract(value, '$[${index}]')`).join(", ");
  sql.exec(
    `INSERT OR IGNORE INTO ${table} (${columns.join(", ")}) SELECT ${values} FROM json_each(?)`,
    JSON.stringify(rows),
  );
}

export function withTestTables<T>(state: ShardState, use: (sql: SqlStorage) => T): T {
  const { sql } = state;
  // What a test changed through the state directly is in its pages first.
  state.commit();
  const runs = [...state.runs.all()].map((run) =>
    RUN_COLUMNS.map((column) => (column === "events_json" ? JSON.stringify(run.events) : run[column])),
  );
  insertAll(
    sql,
    "runs",
    [...RUN_COLUMNS, "dirty"],
    runs.map((row) => [...row, 0]),
  );
  const settledColumns = [...HISTORY_COLUMNS, "run_id", "fire_at_ms", "dirty"];
  for (const job of state.jobs.all()) {
    sql.exec(
      `UPDATE jobs SET ${JOB_TIMING.map((column) => `${column} = ?`).join(", ")}, ahead_scheduled_ms = ? WHERE job_id = ?`,
      ...JOB_TIMING.map((column) => job[column]),
      job.ahead_fire_ms === null ? null : job.next_scheduled_ms,
      job.job_id,
    );
  }
  const pageRows = sql
    .exec<{ tenant_id: string; body: string }>("SELECT tenant_id, body FROM history_pages ORDER BY seq")
    .toArray();
  const keys: [string, number][] = [];
  const records = pageRows.flatMap((page) =>
    (JSON.parse(page.body) as ReturnType<typeof pageRecordOf>[]).map((record) => {
      const stored = storedRecordOfPage(page.tenant_id, record);
      keys.push([stored.job_id, stored.scheduled_at_ms]);
      return HISTORY_COLUMNS.map((column) => stored[column]);
    }),
  );
  // Newest page last: a run written twice (an operator's retry) reads as its newest record.
  const newestFirst = records.reverse();
  const before = new Set(
    sql
      .exec<{ k: string }>("SELECT job_id || '@' || scheduled_at_ms AS k FROM run_history")
      .toArray()
      .map((row) => row.k),
  );
  insertAll(sql, "run_history", HISTORY_COLUMNS, newestFirst);
  // As v23 kept them: settled runs that did not succeed stay in `runs` for a day.
  const dayAgoMs = Date.now() - 86_400_000;
  const unsucceeded = newestFirst.filter((row) => {
    const record = Object.fromEntries(HISTORY_COLUMNS.map((column, index) => [column, row[index]]));
    return record.state !== "SUCCEEDED" && Number(record.updated_at_ms) >= dayAgoMs;
  });
  insertAll(
    sql,
    "runs",
    settledColumns,
    unsucceeded.map((row) => {
      const jobId = String(row[0]);
      const atMs = Number(row[1]);
      return [...row, runIdFor(jobId, atMs), atMs, 0];
    }),
  );
  const projectedSettled = new Set(unsucceeded.map((row) => runIdFor(String(row[0]), Number(row[1]))));
  try {
    return use(sql);
  } finally {
    takeBack(state, projectedSettled);
    sql.exec("DELETE FROM runs");
    const added = keys.filter(([jobId, atMs]) => !before.has(`${jobId}@${atMs}`));
    if (added.length > 0) {
      sql.exec(
        `DELETE FROM run_history WHERE (job_id, scheduled_at_ms) IN
           (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
        JSON.stringify(added),
      );
    }
    state.commit();
  }
}

const TERMINAL = new Set(["SUCCEEDED", "SKIPPED", "CANCELLED"]);

/** What the test left in the tables, back into memory (rows it did not touch change nothing). */
function takeBack(state: ShardState, projectedSettled: ReadonlySet<string>): void {
  const { sql } = state;
  // Jobs first: a run the test settled may then change its job (a deferred completion released).
  const jobRows = readLegacyJobs(sql);
  const jobsLeft = new Set(jobRows.map((row) => row.job_id));
  for (const job of [...state.jobs.all()]) if (!jobsLeft.has(job.job_id)) state.removeJob(job.job_id);
  for (const row of jobRows) {
    const job = state.jobs.get(row.job_id);
    if (job === undefined) continue;
    const before = JSON.stringify(job);
    for (const column of JOB_TIMING) (job as unknown as Record<string, unknown>)[column] = row[column];
    if (JSON.stringify(job) !== before) state.touchJob(job);
  }

  const rows = readLegacyRuns(sql);
  const present = new Set(rows.map((row) => row.run_id));
  for (const run of [...state.runs.all()]) if (!present.has(run.run_id)) state.dropRun(run);
  for (const row of rows) {
    const live = state.runs.get(row.run_id);
    const run = runOfRow(row);
    if (live === undefined && (projectedSettled.has(row.run_id) || TERMINAL.has(run.state))) continue;
    if (live !== undefined && JSON.stringify(live) === JSON.stringify(run)) continue;
    if (live !== undefined)
      state.changeRun(live, (changed) => Object.assign(changed, run, { rev: live.rev }));
    else state.addRun(run);
    // A run the test moved to a final state settles, as the shard settles it.
    const settled = state.runs.get(run.run_id);
    const final = TERMINAL.has(run.state) || (run.state === "DEAD_LETTERED" && run.dlq_pending === 0);
    if (settled !== undefined && final) state.settleRun(settled);
  }
}
