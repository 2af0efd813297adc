-- Console sign-ins, held on the server so that signing out, revoking the key and rotating the
-- admin token end them. The browser's cookie carries only a random session id.
CREATE TABLE console_sessions (
  -- hex SHA-256 of the cookie's random id: a copy of this table opens no session.
  id_hash TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('admin', 'tenant')),
  -- the key's own tenant; NULL for the admin token
  tenant_id TEXT,
  -- the key the session was opened with; NULL for the admin token
  api_key_id TEXT REFERENCES api_keys(id),
  -- tenant: the key's SHA-256 (as in api_keys.key_hash); admin: a PBKDF2 fingerprint of the token
  credential_hash TEXT NOT NULL,
  -- the tenant an admin session is looking at (sent as Edgecron-Tenant); NULL = none chosen
  acting_tenant TEXT,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  CHECK ((role = 'tenant') = (api_key_id IS NOT NULL))
);
CREATE INDEX console_sessions_expires ON console_sessions(expires_at_ms);
CREATE INDEX console_sessions_api_key ON console_sessions(api_key_id);
