-- QStash URL groups (topics) of the /v2 API: a named list of endpoints. A publish to a group is
-- one message per endpoint, each a job of its own (its own delivery, retries and dead letter).
-- The endpoints are one JSON list: a group is small (at most 100) and always read whole.
CREATE TABLE qstash_url_groups (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  name TEXT NOT NULL,
  endpoints_json TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, name)
);
