-- Alerts an operator can act on: acknowledged (seen, still open) and resolved (by the operator,
-- or by the system: a missed_run alert resolves itself when its job fires again), and a delivery
-- state that says plainly when an alert had nowhere to go instead of stamping it delivered.
ALTER TABLE alerts ADD COLUMN acknowledged_at_ms INTEGER;
-- job_fired_again | operator; NULL while unresolved.
ALTER TABLE alerts ADD COLUMN resolution TEXT;
-- pending: not tried yet; delivered; failed: the last attempt failed (retried for an hour);
-- none: no webhook or on_failure URL to send it to.
ALTER TABLE alerts ADD COLUMN delivery TEXT NOT NULL DEFAULT 'pending'
  CHECK (delivery IN ('pending', 'delivered', 'failed', 'none'));
UPDATE alerts SET delivery = CASE
  WHEN delivered_at_ms IS NOT NULL THEN 'delivered'
  WHEN delivery_error IS NOT NULL THEN 'failed'
  ELSE 'pending' END;
-- The console's overview and `?state=open|acknowledged` read only unresolved alerts.
CREATE INDEX alerts_tenant_unresolved ON alerts(tenant_id, created_at_ms DESC, id DESC)
  WHERE resolved_at_ms IS NULL;
-- Every history flush that fired a job looks for that job's unresolved missed_run alerts.
CREATE INDEX alerts_missed_unresolved ON alerts(job_id) WHERE kind = 'missed_run' AND resolved_at_ms IS NULL;
-- Maintenance redelivers what is pending or failed; delivered and none are done.
CREATE INDEX alerts_undelivered ON alerts(created_at_ms) WHERE delivery IN ('pending', 'failed');
