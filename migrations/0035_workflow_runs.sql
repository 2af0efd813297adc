-- Upstash Workflow runs of the /v2 API. A run's steps are /v2 messages (one-shot jobs); what the
-- SDK needs beside them is kept here: the run (its first message's delivery settings, applied to
-- every later message, and its state) and the ordered list of its step messages, which each
-- delivery's SDK reads back (GET /v2/workflows/runs/{runId}). `seq` orders the list in the
-- order the publishes were stored, so a delivery sees every step stored before its own.
CREATE TABLE workflow_runs (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  run_id TEXT NOT NULL,
  url TEXT NOT NULL,
  state TEXT NOT NULL,
  settings TEXT NOT NULL,
  result TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, run_id)
);

CREATE INDEX workflow_runs_by_created ON workflow_runs (tenant_id, created_at_ms);

CREATE TABLE workflow_steps (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  call_type TEXT NOT NULL,
  body_base64 TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);

CREATE INDEX workflow_steps_by_run ON workflow_steps (tenant_id, run_id, seq);
