// Versioned schema of a shard's SQLite storage. Append a migration; never edit one that shipped.
// Runs inside blockConcurrencyWhile, so no request sees a half-migrated shard.

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE jobs (
    job_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    spec_json TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    -- the schedule's next instant, and when it fires (instant + deterministic jitter)
    next_scheduled_ms INTEGER,
    next_fire_ms INTEGER,
    run_count INTEGER NOT NULL DEFAULT 0,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    paused_at_ms INTEGER,
    -- set when the shard itself paused the job (pause_after_failures)
    pause_reason TEXT,
    -- COMPLETED decided here must reach D1
    status_dirty INTEGER NOT NULL DEFAULT 0,
    last_missed_alert_ms INTEGER
  );
  CREATE INDEX jobs_due ON jobs(next_fire_ms) WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL;
  CREATE INDEX jobs_status_dirty ON jobs(status_dirty) WHERE status_dirty = 1;

  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    scheduled_at_ms INTEGER NOT NULL,
    fire_at_ms INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    max_attempts INTEGER NOT NULL,
    fence INTEGER,
    job_version INTEGER NOT NULL,
    -- when this run next needs the wheel: dispatch (SCHEDULED, RETRYING) or lease expiry
    -- (ACQUIRED, DISPATCHED, RUNNING). NULL: terminal, or waiting (see waiting).
    due_at_ms INTEGER,
    waiting TEXT,
    dispatch_count INTEGER NOT NULL DEFAULT 0,
    target_status INTEGER,
    error TEXT,
    lateness_ms INTEGER,
    duration_ms INTEGER,
    next_attempt_at_ms INTEGER,
    events_json TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    -- history not yet written to D1; rev guards against clearing a newer change
    dirty INTEGER NOT NULL DEFAULT 1,
    rev INTEGER NOT NULL DEFAULT 1,
    dlq_pending INTEGER NOT NULL DEFAULT 0,
    dlq_reason TEXT,
    UNIQUE (job_id, scheduled_at_ms)
  );
  CREATE INDEX runs_due ON runs(due_at_ms) WHERE due_at_ms IS NOT NULL;
  CREATE INDEX runs_job_state ON runs(job_id, state);
  CREATE INDEX runs_dirty ON runs(dirty) WHERE dirty = 1;
  CREATE INDEX runs_dlq ON runs(dlq_pending) WHERE dlq_pending = 1;
  CREATE INDEX runs_waiting ON runs(job_id, waiting, scheduled_at_ms) WHERE waiting IS NOT NULL;
  CREATE INDEX runs_terminal_age ON runs(updated_at_ms) WHERE due_at_ms IS NULL AND waiting IS NULL;

  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
  INSERT INTO meta (key, value) VALUES ('fence_seq', 0);
  `,
  // v2: the alarm bookkeeping runs on every RPC; these make "is a flush due, and when" index
  // lookups instead of scans over every in-flight run.
  `
  CREATE INDEX runs_flush_now ON runs(run_id) WHERE dirty = 1 AND due_at_ms IS NULL;
  CREATE INDEX runs_flush_later ON runs(updated_at_ms) WHERE dirty = 1 AND due_at_ms IS NOT NULL;
  DROP INDEX runs_dirty;
  `,
  // v3: a SCHEDULED run waiting for the dispatch budget is not written to D1 until it moves on: in
  // a burst that wrote every backlogged run twice (waiting, then done) and held D1 for seconds.
  `
  DROP INDEX runs_flush_later;
  CREATE INDEX runs_flush_in_flight ON runs(updated_at_ms)
    WHERE dirty = 1 AND due_at_ms IS NOT NULL AND state <> 'SCHEDULED';
  `,
  // v4: a dead letter whose send failed waits with backoff (dlq_retry_at_ms) and is re-sent by
  // reference, alone: one oversized batch once jammed a shard's dead letters for good.
  `
  ALTER TABLE runs ADD COLUMN dlq_send_failures INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN dlq_retry_at_ms INTEGER;
  `,
  // v5: re-deriving timers when the tz database changes. fired_through_ms is the last scheduled
  // instant the shard handled (fired, skipped or passed over): a timer is re-derived from it, not
  // from now, so no instant is fired twice or missed. NULL: none yet (derive from creation).
  // tzdata is this shard's one row: the tz database its timers were computed with, and the
  // progress of a re-derivation towards a new one (jobs in job_id order, after cursor_job_id).
  `
  ALTER TABLE jobs ADD COLUMN fired_through_ms INTEGER;
  CREATE TABLE tzdata (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    timers_version TEXT,
    target_version TEXT,
    cursor_job_id TEXT,
    jobs_done INTEGER NOT NULL DEFAULT 0,
    jobs_changed INTEGER NOT NULL DEFAULT 0,
    started_at_ms INTEGER,
    finished_at_ms INTEGER
  );
  INSERT INTO tzdata (id) VALUES (1);
  `,
  // v6: a run an operator retried or redrove (manual = 1) is dispatched even while its job is
  // paused: a pause governs the job's schedule, not what an operator asked for by hand.
  `
  ALTER TABLE runs ADD COLUMN manual INTEGER NOT NULL DEFAULT 0;
  `,
  // v7: long-running runs. accepted_at_ms: the target accepted the call and reports back later
  // (the RUNNING lease is then the heartbeat timeout); the last heartbeat; the reported result.
  `
  ALTER TABLE runs ADD COLUMN accepted_at_ms INTEGER;
  ALTER TABLE runs ADD COLUMN heartbeat_at_ms INTEGER;
  ALTER TABLE runs ADD COLUMN result_json TEXT;
  `,
  // v8: the tenant calendars a job excludes instants by, as D1 resolved them when it pushed the
  // job (the shard never reads D1 on its hot path), and their revision (a calendar edit re-sends
  // the same job version with a higher one).
  `
  ALTER TABLE jobs ADD COLUMN calendars_json TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE jobs ADD COLUMN calendars_revision INTEGER NOT NULL DEFAULT 0;
  `,
  // v9, v10: no-ops. Dispatch ahead (v12) and fair share (v13) were built beside run history
  // (v11) and merged after it; a shard already at v11 must still get them, so they come last.
  `SELECT 1;`,
  `SELECT 1;`,
  // v11: run history lives in its shard (./store/history-pages.ts), not in one D1 database. A
  // compact record per run, keyed by (job, instant) like the run itself: the run id, the shard
  // and the idempotency key are derived, never stored. run_counts and run_minutes are the
  // aggregates GET /v1/stats reads, kept by triggers so no writer can forget them.
  `
  CREATE TABLE run_history (
    job_id TEXT NOT NULL,
    scheduled_at_ms INTEGER NOT NULL,
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    max_attempts INTEGER NOT NULL,
    fence INTEGER,
    job_version INTEGER NOT NULL,
    target_status INTEGER,
    error TEXT,
    lateness_ms INTEGER,
    duration_ms INTEGER,
    next_attempt_at_ms INTEGER,
    events_json TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    accepted_at_ms INTEGER,
    heartbeat_at_ms INTEGER,
    result_json TEXT,
    PRIMARY KEY (job_id, scheduled_at_ms)
  ) WITHOUT ROWID;
  CREATE INDEX run_history_tenant ON run_history(tenant_id, created_at_ms);
  -- most runs succeed: the state index leaves them out (a list of SUCCEEDED runs reads the
  -- tenant index and skips the few others), which saves ~100 B a record
  CREATE INDEX run_history_tenant_state ON run_history(tenant_id, state, created_at_ms)
    WHERE state <> 'SUCCEEDED';
  CREATE INDEX run_history_created ON run_history(created_at_ms);

  CREATE TABLE run_counts (
    tenant_id TEXT NOT NULL,
    state TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, state)
  ) WITHOUT ROWID;
  -- runs created per minute, and how many of them failed at least once
  CREATE TABLE run_minutes (
    tenant_id TEXT NOT NULL,
    minute_ms INTEGER NOT NULL,
    triggers INTEGER NOT NULL,
    failures INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, minute_ms)
  ) WITHOUT ROWID;

  CREATE TRIGGER run_history_inserted AFTER INSERT ON run_history BEGIN
    INSERT INTO run_counts (tenant_id, state, n) VALUES (NEW.tenant_id, NEW.state, 1)
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO run_minutes (tenant_id, minute_ms, triggers, failures)
      VALUES (NEW.tenant_id, NEW.created_at_ms / 60000 * 60000, 1,
        NEW.state IN ('FAILED', 'DEAD_LETTERED') OR NEW.events_json LIKE '%"FAILED"%')
      ON CONFLICT DO UPDATE SET triggers = triggers + 1, failures = failures + excluded.failures;
  END;
  CREATE TRIGGER run_history_updated AFTER UPDATE OF state, events_json ON run_history BEGIN
    UPDATE run_counts SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND state = OLD.state;
    INSERT INTO run_counts (tenant_id, state, n) VALUES (NEW.tenant_id, NEW.state, 1)
      ON CONFLICT DO UPDATE SET n = n + 1;
    UPDATE run_minutes SET failures = failures
        + (NEW.state IN ('FAILED', 'DEAD_LETTERED') OR NEW.events_json LIKE '%"FAILED"%')
        - (OLD.state IN ('FAILED', 'DEAD_LETTERED') OR OLD.events_json LIKE '%"FAILED"%')
      WHERE tenant_id = NEW.tenant_id AND minute_ms = NEW.created_at_ms / 60000 * 60000;
  END;
  CREATE TRIGGER run_history_deleted AFTER DELETE ON run_history BEGIN
    UPDATE run_counts SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND state = OLD.state;
  END;
  `,
  // v12: dispatch ahead of the instant (./dispatch/ahead.ts). ahead_scheduled_ms: the instant whose
  // run was created and queued ahead (the job's timer itself still waits for the instant). The
  // partial index finds, in order, the jobs whose next instant may still be queued ahead; its
  // WHERE is AHEAD_ELIGIBLE in ./dispatch/ahead.ts word for word, so the planner uses it.
  `
  ALTER TABLE jobs ADD COLUMN ahead_scheduled_ms INTEGER;
  CREATE INDEX jobs_ahead_due ON jobs(next_fire_ms)
    WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL AND ahead_scheduled_ms IS NOT next_scheduled_ms
      AND json_extract(spec_json, '$.overlap') = 'allow';
  -- The earliest job timer, apart for jobs whose instant went ahead (its own pass may wait a
  -- little past the instant, so the first claims of a burst do not queue behind it) and the rest.
  CREATE INDEX jobs_due_sent_ahead ON jobs(next_fire_ms)
    WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL AND ahead_scheduled_ms IS next_scheduled_ms;
  CREATE INDEX jobs_due_not_sent_ahead ON jobs(next_fire_ms)
    WHERE status = 'ACTIVE' AND next_fire_ms IS NOT NULL AND ahead_scheduled_ms IS NOT next_scheduled_ms;
  -- The unclaimed budget counts handed-off runs whose instant has come (./shard/budget.ts) on
  -- every tick and claim: without this, a scan of every run.
  CREATE INDEX runs_unclaimed ON runs(fire_at_ms) WHERE state IN ('ACQUIRED', 'DISPATCHED');
  `,
  // (v12's comment above describes the unclaimed budget, which the dispatch window of v14
  // replaced; a migration that shipped is never edited, its comment included.)
  // v13: fair share (shard/fair-share.ts) walks the tenants with timers, one index seek each; a
  // run refused by a flow gate notes the gate, which wakes it when permits come back.
  `
  CREATE INDEX runs_tenant_due ON runs(tenant_id, due_at_ms) WHERE due_at_ms IS NOT NULL;
  ALTER TABLE runs ADD COLUMN flow_gate TEXT;
  CREATE INDEX runs_flow_gate ON runs(flow_gate, due_at_ms) WHERE flow_gate IS NOT NULL;
  `,
  // v14: the dispatch window counts, per tenant, the runs handed to the execution path and not
  // yet reported and whose lease holds (./dispatch/budget.ts) on every tick, claim and outcome: a
  // walk of at most the window in this index, not a scan of every run. Its WHERE is
  // inFlightByTenant's word for word.
  `
  CREATE INDEX runs_in_flight ON runs(tenant_id, due_at_ms)
    WHERE state IN ('ACQUIRED', 'DISPATCHED') OR (state = 'RUNNING' AND accepted_at_ms IS NULL);
  `,
  // v15: a job's priority orders its tenant's due runs (./wheel/fair-due-runs.ts): copied to the run
  // when it is created (one subquery of the insert), read per tenant in (priority, due) order.
  `
  ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 3;
  CREATE INDEX runs_tenant_priority_due ON runs(tenant_id, priority, due_at_ms) WHERE due_at_ms IS NOT NULL;
  `,
  // v16: tenant suspension (shard/tenant-suspension.ts): the suspended tenants, whose claims are
  // refused, and the timers their jobs had when parked, put back on unsuspend.
  `
  CREATE TABLE suspended_tenants (tenant_id TEXT PRIMARY KEY, suspended_at_ms INTEGER NOT NULL);
  CREATE TABLE parked_timers (job_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, next_fire_ms INTEGER NOT NULL);
  CREATE INDEX parked_timers_tenant ON parked_timers(tenant_id);
  `,
  // v17: a run's job may hold it past its fire time (an overlap buffer, a flow gate): how long, and
  // which, so its lateness splits into the scheduler's own and what the job asked for
  // (src/core/load/run-waits.ts). Set only until the first claim; copied into the history record.
  `
  ALTER TABLE runs ADD COLUMN held_ms INTEGER;
  ALTER TABLE runs ADD COLUMN held_by TEXT;
  ALTER TABLE run_history ADD COLUMN held_ms INTEGER;
  ALTER TABLE run_history ADD COLUMN held_by TEXT;
  `,
  // v18: tenant weights in the dispatch window's fair share (./flow/tenant-weights.ts): what the
  // admin set (pushed to the shard, refreshed from D1 with the tenant limits). A tenant without a
  // row has the default weight, 1.
  `
  CREATE TABLE tenant_weights (tenant_id TEXT PRIMARY KEY, weight INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);
  `,
  // v19: slow calls (src/core/runs/slow-calls.ts): when the consumer said a claimed run's call was still
  // running a second after it started. Set only for those calls and cleared by the next claim. The
  // tick counts them per tenant on every pass through this index, which holds only the running
  // slow calls: empty, and free to keep, while every call is quick (a burst, a flood).
  `
  ALTER TABLE runs ADD COLUMN slow_since_ms INTEGER;
  CREATE INDEX runs_slow_calls ON runs(tenant_id) WHERE slow_since_ms IS NOT NULL AND state = 'RUNNING';
  `,
  // v20: a one-shot (or last) completion waits for its last run (./write-behind.ts,
  // status_dirty = 2): each write-behind pass looks at those jobs only, through this index.
  `
  CREATE INDEX jobs_completion_deferred ON jobs(job_id) WHERE status_dirty = 2;
  `,
  // v21: debounced triggers (src/core/runs/debounce.ts, ./runs/debounce-windows.ts). A window per
  // (job, key): the run its triggers fold into, when the window opened, when its run fires, and
  // until when it takes triggers (older windows of the job are pruned at its next trigger). A run
  // counts the triggers folded into it, copied into its history record.
  `
  CREATE TABLE debounce_windows (
    job_id TEXT NOT NULL,
    debounce_key TEXT NOT NULL,
    run_id TEXT NOT NULL,
    scheduled_at_ms INTEGER NOT NULL,
    opened_at_ms INTEGER NOT NULL,
    fire_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    PRIMARY KEY (job_id, debounce_key)
  ) WITHOUT ROWID;
  ALTER TABLE runs ADD COLUMN triggers_folded INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE run_history ADD COLUMN triggers_folded INTEGER NOT NULL DEFAULT 0;
  `,
  // v22: the destination hosts this shard knows are throttled for a tenant
  // (./flow/host-throttles.ts). Only their runs ask a host gate; a host with no row costs nothing.
  `
  CREATE TABLE host_throttles (
    gate TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    origin TEXT NOT NULL,
    since_ms INTEGER NOT NULL
  );
  `,
  // v23: indexes no query needs, each one more entry to move on every state change of a run.
  // runs_unclaimed served the unclaimed budget that the dispatch window (v14) replaced. The
  // (tenant_id, due_at_ms) of runs_tenant_due is the prefix and suffix of runs_tenant_priority_due
  // (v15): the tenant walk and the tenant's due rows read that one (./wheel/fair-due-runs.ts).
  `
  DROP INDEX runs_unclaimed;
  DROP INDEX runs_tenant_due;
  `,
  // v24: storage by batch (./README.md). Runs and the jobs' timing state live in memory and
  // are written as batches: each commit is one journal row (a ring, rewritten in place, so an
  // entry costs one row and no delete), a checkpoint rewrites the snapshot's changed chunks, and
  // settled runs go into history pages (one row per tenant, outcome and 10 s of instants per
  // commit), keyed so a run, a job's runs and a tenant's runs are index seeks. The per-row indexes
  // of jobs and runs go (every one was an entry written per run), and so do the triggers of
  // run_history (its aggregates are kept in memory and checkpointed). The rows of runs, and the
  // timing columns of jobs, are read once into memory by the first start of this version.
  `
  CREATE TABLE journal (slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL);
  CREATE TABLE snapshot (slot INTEGER PRIMARY KEY, body TEXT NOT NULL);
  CREATE TABLE history_pages (
    tenant_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    bucket_ms INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    written_at_ms INTEGER NOT NULL,
    job_ids TEXT NOT NULL,
    counts TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, outcome, bucket_ms, seq)
  ) WITHOUT ROWID;
  DROP INDEX jobs_due;
  DROP INDEX jobs_status_dirty;
  DROP INDEX jobs_ahead_due;
  DROP INDEX jobs_due_sent_ahead;
  DROP INDEX jobs_due_not_sent_ahead;
  DROP INDEX jobs_completion_deferred;
  DROP INDEX runs_due;
  DROP INDEX runs_job_state;
  DROP INDEX runs_dlq;
  DROP INDEX runs_waiting;
  DROP INDEX runs_terminal_age;
  DROP INDEX runs_flush_now;
  DROP INDEX runs_flush_in_flight;
  DROP INDEX runs_flow_gate;
  DROP INDEX runs_in_flight;
  DROP INDEX runs_tenant_priority_due;
  DROP INDEX runs_slow_calls;
  DROP TRIGGER run_history_inserted;
  DROP TRIGGER run_history_updated;
  DROP TRIGGER run_history_deleted;
  `,
];

/** Applies every migration newer than the stored schema version. */
export function migrateShardSchema(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  let version = row?.version ?? 0;
  if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  while (version < MIGRATIONS.length) {
    sql.exec(MIGRATIONS[version] as string);
    version += 1;
    sql.exec("UPDATE schema_version SET version = ?", version);
  }
}
