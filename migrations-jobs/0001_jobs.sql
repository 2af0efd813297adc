-- edgecron job database schema (bindings DB_JOBS_0 .. DB_JOBS_{JOB_DATABASES-1}). A job lives in
-- the database its id hashes to; every job database has this same schema. Append-only.
-- Same columns and indexes as the control database's original `jobs` table (migrations/0001,
-- 0002), so `npm run migrate:layout` copies rows as they are.

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
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
