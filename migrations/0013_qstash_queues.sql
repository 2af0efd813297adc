-- QStash queues of the /v2 API: a named parallelism limit. A message enqueued to one is a job
-- whose flow_control key is the queue's (`queue:<name>`), so at most `parallelism` of its calls
-- are in flight, across shards.
CREATE TABLE qstash_queues (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  name TEXT NOT NULL,
  parallelism INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, name)
);
