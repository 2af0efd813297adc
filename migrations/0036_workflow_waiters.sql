-- Workflow runs waiting for an event (`context.waitForEvent`): resolved by POST /v2/notify, or
-- by their timeout message (a delayed /v2 message published when the wait began, deleted when a
-- notify comes first). A waiting run costs this row and that message, nothing else.
CREATE TABLE workflow_waiters (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  event_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  url TEXT NOT NULL,
  headers TEXT NOT NULL,
  step TEXT NOT NULL,
  timeout_message_id TEXT NOT NULL,
  deadline_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, event_id, run_id)
);
