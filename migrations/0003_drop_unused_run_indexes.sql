-- Every run is written to D1 once per settled state, so each index on runs is paid on the hottest
-- write path. No query reads these two: lists and counts go through (tenant_id, state,
-- created_at_ms ...) and (tenant_id, created_at_ms ...), retention through runs_updated.
DROP INDEX IF EXISTS runs_tenant_state;
DROP INDEX IF EXISTS runs_tenant_updated;
