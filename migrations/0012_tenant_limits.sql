-- Per-tenant limits the admin sets (admission control). A NULL column takes the deployment's
-- default from the TENANT_* vars; 0 means "no limit" for this tenant.
CREATE TABLE tenant_limits (
  tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
  active_jobs INTEGER,
  creates_per_second INTEGER,
  triggers_per_second INTEGER,
  concurrent_calls INTEGER,
  updated_at_ms INTEGER NOT NULL
);
-- Jobs created in the tenant's current one-second window: one row per tenant, reset when the
-- window moves on. The create path counts into it with one conditional upsert, so the limit
-- holds across isolates.
CREATE TABLE tenant_create_windows (
  tenant_id TEXT PRIMARY KEY,
  window_s INTEGER NOT NULL,
  created INTEGER NOT NULL
);
-- Flow-control keys a run has asked for, per tenant (a key's gate records it on first use), so a
-- tenant can list its keys; the state of each lives in its gate.
CREATE TABLE flow_control_keys (
  tenant_id TEXT NOT NULL,
  key TEXT NOT NULL,
  first_used_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
