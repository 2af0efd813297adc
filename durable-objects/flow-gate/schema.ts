// Versioned schema of a flow gate's SQLite storage. Append a migration; never edit one that shipped.

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE gate_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    gate TEXT NOT NULL,
    key TEXT NOT NULL,
    rate INTEGER,
    period_ms INTEGER NOT NULL,
    parallelism INTEGER,
    updated_at_ms INTEGER NOT NULL
  );
  -- One row per rate permit granted within the window (purged as they leave it).
  CREATE TABLE rate_grants (run_id TEXT NOT NULL, at_ms INTEGER NOT NULL);
  CREATE INDEX rate_grants_at ON rate_grants(at_ms);
  CREATE INDEX rate_grants_run ON rate_grants(run_id);
  -- Parallelism permits held; one never returned expires at expires_at_ms.
  CREATE TABLE leases (run_id TEXT PRIMARY KEY, holder INTEGER, expires_at_ms INTEGER NOT NULL);
  CREATE INDEX leases_expiry ON leases(expires_at_ms);
  -- Each shard's last report of runs told to wait (the key's wait list).
  CREATE TABLE waiting (holder INTEGER PRIMARY KEY, runs INTEGER NOT NULL, counts_until_ms INTEGER NOT NULL);
  `,
  `
  -- Present while the key is paused (QStash's flowControl.pause, a queue's pause): no new permit.
  CREATE TABLE gate_pause (id INTEGER PRIMARY KEY CHECK (id = 1), paused_at_ms INTEGER NOT NULL);
  `,
  `
  -- A destination host's adaptive throttle (src/core/host-throttle.ts), on a host gate only:
  -- present while the host is throttled, gone once it is back above its ceiling.
  CREATE TABLE host_throttle (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    tenant_id TEXT NOT NULL,
    origin TEXT NOT NULL,
    limit_calls REAL NOT NULL,
    paused_until_ms INTEGER,
    last_signal TEXT NOT NULL,
    last_signal_at_ms INTEGER NOT NULL,
    last_cut_at_ms INTEGER NOT NULL
  );
  `,
];

export function migrateGateSchema(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS gate_schema (version INTEGER NOT NULL)");
  const version = sql.exec<{ v: number | null }>("SELECT MAX(version) AS v FROM gate_schema").one().v ?? 0;
  for (let index = version; index < MIGRATIONS.length; index += 1) {
    sql.exec(MIGRATIONS[index] as string);
    sql.exec("INSERT INTO gate_schema (version) VALUES (?)", index + 1);
  }
}
