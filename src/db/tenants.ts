export interface TenantRow {
  id: string;
  name: string;
  signing_secret: string;
  signing_secret_next: string | null;
  alert_webhook_url: string | null;
  created_at_ms: number;
  /** Absent on a row read before the suspension column existed. */
  suspended_at_ms?: number | null;
}

/** The secrets a signature is made with: the current one, then the next during a rotation. */
export function signingSecretsOf(row: Pick<TenantRow, "signing_secret" | "signing_secret_next">): string[] {
  return [row.signing_secret, ...(row.signing_secret_next ? [row.signing_secret_next] : [])];
}

/** The signing secrets of these tenants (one query); an unknown tenant is absent from the map. */
export async function findSigningSecrets(
  db: D1Database,
  tenantIds: readonly string[],
): Promise<Map<string, string[]>> {
  const { results } = await db
    .prepare(
      "SELECT id, signing_secret, signing_secret_next FROM tenants WHERE id IN (SELECT value FROM json_each(?))",
    )
    .bind(JSON.stringify(tenantIds))
    .all<Pick<TenantRow, "id" | "signing_secret" | "signing_secret_next">>();
  return new Map(results.map((row) => [row.id, signingSecretsOf(row)]));
}

export async function insertTenant(db: D1Database, row: TenantRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO tenants (id, name, signing_secret, signing_secret_next, alert_webhook_url, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.id,
      row.name,
      row.signing_secret,
      row.signing_secret_next,
      row.alert_webhook_url,
      row.created_at_ms,
    )
    .run();
}

export async function findTenant(db: D1Database, id: string): Promise<TenantRow | null> {
  return db.prepare("SELECT * FROM tenants WHERE id = ?").bind(id).first<TenantRow>();
}

export async function listTenants(db: D1Database): Promise<TenantRow[]> {
  const { results } = await db.prepare("SELECT * FROM tenants ORDER BY id DESC LIMIT 1000").all<TenantRow>();
  return results;
}

export async function updateTenant(
  db: D1Database,
  id: string,
  changes: { name?: string; alert_webhook_url?: string | null },
): Promise<void> {
  const sets: string[] = [];
  const values: (string | null)[] = [];
  if (changes.name !== undefined) {
    sets.push("name = ?");
    values.push(changes.name);
  }
  if (changes.alert_webhook_url !== undefined) {
    sets.push("alert_webhook_url = ?");
    values.push(changes.alert_webhook_url);
  }
  if (sets.length === 0) return;
  await db
    .prepare(`UPDATE tenants SET ${sets.join(", ")} WHERE id = ?`)
    .bind(...values, id)
    .run();
}

export async function setNextSigningSecret(db: D1Database, id: string, secret: string): Promise<void> {
  await db.prepare("UPDATE tenants SET signing_secret_next = ? WHERE id = ?").bind(secret, id).run();
}

/** Next becomes current; a promote with no next secret changes nothing. */
export async function promoteSigningSecret(db: D1Database, id: string): Promise<void> {
  await db
    .prepare(
      `UPDATE tenants SET signing_secret = signing_secret_next, signing_secret_next = NULL
       WHERE id = ? AND signing_secret_next IS NOT NULL`,
    )
    .bind(id)
    .run();
}

/** Suspends the tenant from `atMs` (null: unsuspends); a repeated suspend keeps the first time. */
export async function setTenantSuspendedAt(db: D1Database, id: string, atMs: number | null): Promise<void> {
  await db
    .prepare(
      "UPDATE tenants SET suspended_at_ms = CASE WHEN ? IS NULL THEN NULL ELSE COALESCE(suspended_at_ms, ?) END WHERE id = ?",
    )
    .bind(atMs, atMs, id)
    .run();
}

/** When the tenant was suspended, or null if it is not (or does not exist). */
export async function tenantSuspendedAtMs(db: D1Database, id: string): Promise<number | null> {
  const row = await db
    .prepare("SELECT suspended_at_ms FROM tenants WHERE id = ?")
    .bind(id)
    .first<{ suspended_at_ms: number | null }>();
  return row?.suspended_at_ms ?? null;
}
