// Console sessions (migrations/0005_console_sessions.sql). Rows are found by the SHA-256 of the
// cookie's id, never by the id itself; whether a row still stands is decided in
// src/service/console-sessions.ts, which reads it together with the state of the key it was opened with.

export interface ConsoleSessionRow {
  id_hash: string;
  role: "admin" | "tenant";
  tenant_id: string | null;
  api_key_id: string | null;
  credential_hash: string;
  acting_tenant: string | null;
  created_at_ms: number;
  expires_at_ms: number;
}

/** A session row with the current state of its key (both null for admin sessions). */
export interface ConsoleSessionWithKey extends ConsoleSessionRow {
  key_hash: string | null;
  key_revoked_at_ms: number | null;
}

export async function insertConsoleSession(db: D1Database, row: ConsoleSessionRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO console_sessions
         (id_hash, role, tenant_id, api_key_id, credential_hash, acting_tenant, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.id_hash,
      row.role,
      row.tenant_id,
      row.api_key_id,
      row.credential_hash,
      row.acting_tenant,
      row.created_at_ms,
      row.expires_at_ms,
    )
    .run();
}

/** One query: the session and, for a tenant session, its key's hash and revocation. */
export async function findConsoleSession(
  db: D1Database,
  idHash: string,
): Promise<ConsoleSessionWithKey | null> {
  return db
    .prepare(
      `SELECT s.*, k.key_hash AS key_hash, k.revoked_at_ms AS key_revoked_at_ms
         FROM console_sessions s LEFT JOIN api_keys k ON k.id = s.api_key_id
        WHERE s.id_hash = ?`,
    )
    .bind(idHash)
    .first<ConsoleSessionWithKey>();
}

export async function setConsoleSessionActingTenant(
  db: D1Database,
  idHash: string,
  actingTenant: string | null,
): Promise<void> {
  await db
    .prepare("UPDATE console_sessions SET acting_tenant = ? WHERE id_hash = ?")
    .bind(actingTenant, idHash)
    .run();
}

export async function deleteConsoleSession(db: D1Database, idHash: string): Promise<void> {
  await db.prepare("DELETE FROM console_sessions WHERE id_hash = ?").bind(idHash).run();
}

/**
 * Deletes up to `limit` sessions that can no longer be used: expired, opened with a key since
 * revoked, or admin sessions opened with another admin token than `adminCredentialHash` (pass null
 * when no admin token is configured: every admin session has then ended). Returns how many.
 */
export async function deleteEndedConsoleSessions(
  db: D1Database,
  nowMs: number,
  adminCredentialHash: string | null,
  limit: number,
): Promise<number> {
  const result = await db
    .prepare(
      `DELETE FROM console_sessions WHERE id_hash IN (
         SELECT s.id_hash FROM console_sessions s LEFT JOIN api_keys k ON k.id = s.api_key_id
          WHERE s.expires_at_ms <= ?
             OR (s.role = 'tenant' AND (k.id IS NULL OR k.revoked_at_ms IS NOT NULL OR k.key_hash <> s.credential_hash))
             OR (s.role = 'admin' AND s.credential_hash IS NOT ?)
          LIMIT ?)`,
    )
    .bind(nowMs, adminCredentialHash, limit)
    .run();
  return result.meta.changes ?? 0;
}
