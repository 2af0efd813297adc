-- A tenant's weight in the fair share of a saturated dispatch window: a weight-2 tenant gets
-- about twice a weight-1 tenant's share. NULL takes the default (1, every tenant equal). Kept with
-- the limits: the admin sets both on the same resource, and a shard reads both in one query.
ALTER TABLE tenant_limits ADD COLUMN weight INTEGER;
