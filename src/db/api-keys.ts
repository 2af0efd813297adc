export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  key_hash: string;
  key_prefix: string;
  name: string | null;
  created_at_ms: number;
  revoked_at_ms: number | null;
}

export async function insertApiKey(db: D1Database, row: ApiKeyRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO api_keys (id, tenant_id, key_hash, key_prefix, name, created_at_ms, revoked_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, NULL)`,
    )
    .bind(row.id, row.tenant_id, row.key_hash, row.key_prefix, row.name, row.created_at_ms)
    .run();
}

export async function findApiKeyByHash(db: D1Database, keyHash: string): Promise<ApiKeyRow | null> {
  return db.prepare("SELECT * FROM api_keys WHERE key_hash = ?").bind(keyHash).first<ApiKeyRow>();
}

export async function findApiKey(db: D1Database, id: string): Promise<ApiKeyRow | null> {
  return db.prepare("SELECT * FROM api_keys WHERE id = ?").bind(id).first<ApiKeyRow>();
}

/** Revokes once: a second revoke keeps the first instant. */
export async function revokeApiKey(db: D1Database, id: string, nowMs: number): Promise<void> {
  await db
    .prepare("UPDATE api_keys SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL")
    .bind(nowMs, id)
    .run();
}

/** A tenant's keys, newest first (hashes stay in the database: the resource never carries them). */
export async function listApiKeys(db: D1Database, tenantId: string): Promise<ApiKeyRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY id DESC LIMIT 1000")
    .bind(tenantId)
    .all<ApiKeyRow>();
  return results;
}
