-- edgecron D1 schema v1. Append-only: later changes go in new numbered files.

CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- HMAC-SHA256 key for Edgecron-Signature; during rotation the next secret signs too.
  signing_secret TEXT NOT NULL,
  signing_secret_next TEXT,
  alert_webhook_url TEXT,
  created_at_ms INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  -- hex SHA-256 of the full key; the key itself is shown once and never stored.
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  name TEXT,
  created_at_ms INTEGER NOT NULL,
  revoked_at_ms INTEGER
);
CREATE INDEX api_keys_tenant ON api_keys(tenant_id);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  name TEXT NOT NULL,
  -- normalized job spec (schedule, target, policies) as JSON; see src/core/job-spec.ts
  spec_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ACTIVE', 'PAUSED', 'COMPLETED', 'DELETED')),
  version INTEGER NOT NULL,
  shard INTEGER NOT NULL,
  -- outbox: the shard has confirmed this version; synced_version < version means re-send.
  synced_version INTEGER NOT NULL DEFAULT 0,
  idempotency_key TEXT,
  request_hash TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX jobs_tenant_name ON jobs(tenant_id, name, id);
CREATE INDEX jobs_tenant_status ON jobs(tenant_id, status, id);
CREATE INDEX jobs_tenant_id ON jobs(tenant_id, id);
CREATE UNIQUE INDEX jobs_idempotency ON jobs(tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_unsynced ON jobs(synced_version, version) WHERE synced_version < version;

-- Run history, written in batches by the shard that owns the run (the shard is authoritative
-- for in-flight runs; this table is the durable, queryable record).
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  shard INTEGER NOT NULL,
  kind TEXT NOT NULL,             -- schedule | trigger | backfill | catch_up
  scheduled_at_ms INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL,  -- {job_id}:{scheduled_at}
  state TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  fence INTEGER,
  job_version INTEGER NOT NULL,
  target_status INTEGER,
  error TEXT,
  lateness_ms INTEGER,            -- dispatch time minus scheduled instant
  duration_ms INTEGER,
  next_attempt_at_ms INTEGER,
  -- every state change: [{state, at_ms, reason, attempt, fence?, target_status?}]
  events_json TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX runs_job ON runs(job_id, scheduled_at_ms DESC, id);
CREATE INDEX runs_tenant_state ON runs(tenant_id, state, updated_at_ms DESC);
CREATE INDEX runs_tenant_updated ON runs(tenant_id, updated_at_ms DESC);
CREATE INDEX runs_updated ON runs(updated_at_ms);

CREATE TABLE dead_letters (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  scheduled_at_ms INTEGER NOT NULL,
  reason TEXT NOT NULL,           -- exhausted | permanent | poison
  last_error TEXT,
  target_status INTEGER,
  payload_json TEXT NOT NULL,     -- the target request that failed (method, url, headers, body)
  created_at_ms INTEGER NOT NULL,
  redriven_at_ms INTEGER,
  UNIQUE (run_id, attempt)
);
CREATE INDEX dead_letters_tenant ON dead_letters(tenant_id, created_at_ms DESC, id);

CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  job_id TEXT,
  run_id TEXT,
  kind TEXT NOT NULL,             -- dead_lettered | paused_after_failures | missed_run
  dedup_key TEXT NOT NULL UNIQUE,
  message TEXT NOT NULL,
  details_json TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  delivered_at_ms INTEGER,
  delivery_error TEXT,
  resolved_at_ms INTEGER
);
CREATE INDEX alerts_tenant ON alerts(tenant_id, created_at_ms DESC, id);
