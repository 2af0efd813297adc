-- The destination hosts a tenant's calls are throttled at (issue 25 item 4): written by a host's
-- flow gate when its throttle starts, deleted when it ends. What the throttle allows and holds
-- lives in the gate; this is only the index `GET /v1/flow-control` lists.
CREATE TABLE throttled_hosts (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  origin TEXT NOT NULL,
  since_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, origin)
);
