-- Which shards hold a tenant's jobs, and so its runs: the tenant-wide views (runs list, failures,
-- stats, the console overview) ask only these shards instead of every one. Kept by triggers, so
-- every way a job is placed (create, batch create, schedule upsert, layout move) maintains it.
-- Rows are never removed: a deleted job's runs stay in its shard's history until retention, and
-- asking a shard that no longer holds any of them costs one empty read. The triggers test for the
-- row instead of INSERT OR IGNORE: an outer statement's conflict policy (an upsert's included)
-- overrides a trigger's OR IGNORE, and a job moved by an upsert failed on the existing row.
CREATE TABLE tenant_shards (
  tenant_id TEXT NOT NULL,
  shard INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, shard)
) WITHOUT ROWID;

INSERT OR IGNORE INTO tenant_shards (tenant_id, shard) SELECT DISTINCT tenant_id, shard FROM jobs;

CREATE TRIGGER jobs_tenant_shard_insert AFTER INSERT ON jobs
BEGIN
  INSERT INTO tenant_shards (tenant_id, shard)
    SELECT NEW.tenant_id, NEW.shard
    WHERE NOT EXISTS (SELECT 1 FROM tenant_shards WHERE tenant_id = NEW.tenant_id AND shard = NEW.shard);
END;

CREATE TRIGGER jobs_tenant_shard_update AFTER UPDATE OF tenant_id, shard ON jobs
BEGIN
  INSERT INTO tenant_shards (tenant_id, shard)
    SELECT NEW.tenant_id, NEW.shard
    WHERE NOT EXISTS (SELECT 1 FROM tenant_shards WHERE tenant_id = NEW.tenant_id AND shard = NEW.shard);
END;
