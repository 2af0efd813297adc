-- Named calendars per tenant: exclusion rules (dates, date ranges, weekly days) in a time zone,
-- referenced by jobs' `calendars`. `revision` grows with every edit: a shard holding a job's
-- calendars at a lower revision takes the re-sent snapshot and re-derives the job's timer.
CREATE TABLE calendars (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  timezone TEXT NOT NULL,
  rules_json TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, name)
);
