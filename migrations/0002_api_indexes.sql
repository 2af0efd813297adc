-- Indexes for the API's list and stats queries (newest first, stable cursor on (time, id)).
CREATE INDEX runs_tenant_created ON runs(tenant_id, created_at_ms DESC, id DESC);
CREATE INDEX runs_tenant_state_created ON runs(tenant_id, state, created_at_ms DESC, id DESC);
CREATE INDEX runs_created ON runs(created_at_ms);
CREATE INDEX dead_letters_tenant_job ON dead_letters(tenant_id, job_id, created_at_ms DESC, id DESC);
CREATE INDEX alerts_tenant_kind ON alerts(tenant_id, kind, created_at_ms DESC, id DESC);
