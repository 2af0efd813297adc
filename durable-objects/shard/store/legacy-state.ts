// A shard's state as schema v23 kept it, row by row: read once, into memory, by the first start
// of storage by batch (../state/restore.ts), then the rows that moved are deleted.

/** A job row with its v23 timing columns. */
export type LegacyJobRow = {
  job_id: string;
  tenant_id: string;
  version: number;
  status: string;
  spec_json: string;
  created_at_ms: number;
  next_scheduled_ms: number | null;
  next_fire_ms: number | null;
  run_count: number;
  consecutive_failures: number;
  paused_at_ms: number | null;
  pause_reason: string | null;
  status_dirty: number;
  last_missed_alert_ms: number | null;
  fired_through_ms: number | null;
  calendars_revision: number;
  ahead_scheduled_ms: number | null;
};

export type LegacyRunRow = Record<string, SqlStorageValue> & { run_id: string; events_json: string };

/** Whether the shard still holds v23 state (jobs it never checkpointed, or runs rows). */
export function hasLegacyState(sql: SqlStorage): boolean {
  const row = sql
    .exec<{ jobs: number; runs: number }>(
      "SELECT EXISTS (SELECT 1 FROM jobs) AS jobs, EXISTS (SELECT 1 FROM runs) AS runs",
    )
    .one();
  return row.jobs === 1 || row.runs === 1;
}

export function readLegacyJobs(sql: SqlStorage): LegacyJobRow[] {
  return sql
    .exec<LegacyJobRow>(
      `SELECT job_id, tenant_id, version, status, spec_json, created_at_ms, next_scheduled_ms, next_fire_ms,
         run_count, consecutive_failures, paused_at_ms, pause_reason, status_dirty, last_missed_alert_ms,
         fired_through_ms, calendars_revision, ahead_scheduled_ms FROM jobs`,
    )
    .toArray();
}

export function readLegacyRuns(sql: SqlStorage): LegacyRunRow[] {
  return sql.exec<LegacyRunRow>("SELECT * FROM runs").toArray();
}

export function readParkedTimers(sql: SqlStorage): Map<string, number> {
  const rows = sql
    .exec<{ job_id: string; next_fire_ms: number }>("SELECT job_id, next_fire_ms FROM parked_timers")
    .toArray();
  return new Map(rows.map((row) => [row.job_id, row.next_fire_ms]));
}

export function readLegacyCounts(sql: SqlStorage): {
  counts: { tenant_id: string; state: string; n: number }[];
  minutes: { tenant_id: string; minute_ms: number; triggers: number; failures: number }[];
} {
  return {
    counts: sql
      .exec<{ tenant_id: string; state: string; n: number }>("SELECT * FROM run_counts WHERE n > 0")
      .toArray(),
    minutes: sql
      .exec<{ tenant_id: string; minute_ms: number; triggers: number; failures: number }>(
        "SELECT * FROM run_minutes",
      )
      .toArray(),
  };
}

export function readLegacyFenceSeq(sql: SqlStorage): number {
  return (
    sql.exec<{ value: number }>("SELECT value FROM meta WHERE key = 'fence_seq'").toArray()[0]?.value ?? 0
  );
}

/** The v23 rows now held in memory and checkpointed. */
export function deleteLegacyState(sql: SqlStorage): void {
  sql.exec("DELETE FROM runs");
  sql.exec("DELETE FROM parked_timers");
  sql.exec("DELETE FROM run_counts");
  sql.exec("DELETE FROM run_minutes");
}
