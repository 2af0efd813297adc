-- A suspended tenant: no call of it starts and its creates are refused (403 tenant_suspended)
-- until an admin unsuspends it. NULL: not suspended.
ALTER TABLE tenants ADD COLUMN suspended_at_ms INTEGER;
