// Signing secrets per tenant, cached briefly per isolate: one D1 read per tenant per TTL rather
// than one per call. A rotation is picked up within the TTL, and both secrets sign meanwhile.
const TTL_MS = 30_000;
const cache = new Map<string, { secrets: string[]; expiresAtMs: number }>();

export async function tenantSecrets(
  db: D1Database,
  tenantIds: string[],
  nowMs: number,
): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  const missing: string[] = [];
  for (const tenantId of new Set(tenantIds)) {
    const cached = cache.get(tenantId);
    if (cached && cached.expiresAtMs > nowMs) result.set(tenantId, cached.secrets);
    else missing.push(tenantId);
  }
  if (missing.length > 0) {
    const rows = await db
      .prepare(
        "SELECT id, signing_secret, signing_secret_next FROM tenants WHERE id IN (SELECT value FROM json_each(?))",
      )
      .bind(JSON.stringify(missing))
      .all<{ id: string; signing_secret: string; signing_secret_next: string | null }>();
    for (const row of rows.results) {
      const secrets = [row.signing_secret, ...(row.signing_secret_next ? [row.signing_secret_next] : [])];
      cache.set(row.id, { secrets, expiresAtMs: nowMs + TTL_MS });
      result.set(row.id, secrets);
    }
  }
  return result;
}

/** Forget cached secrets (after a rotation in this isolate). */
export function forgetTenantSecrets(tenantId: string): void {
  cache.delete(tenantId);
}
