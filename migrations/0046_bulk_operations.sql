-- A bulk control call whose filter matches many jobs answers 202 and goes on in the background;
-- its progress is kept here for GET /v1/jobs/bulk/{id}. `state` is running, succeeded or failed;
-- `updated_at_ms` moves with every chunk, so a call whose worker was stopped shows as interrupted.
CREATE TABLE bulk_operations (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  action TEXT NOT NULL,
  matched INTEGER NOT NULL,
  done INTEGER NOT NULL,
  state TEXT NOT NULL,
  error TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX bulk_operations_tenant ON bulk_operations(tenant_id, created_at_ms);
