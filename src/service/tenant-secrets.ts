// Signing secrets per tenant, cached briefly per isolate: one D1 read per tenant per TTL rather
// than one per call. A rotation is picked up within the TTL, and both secrets sign meanwhile.
import { findSigningSecrets } from "../db/tenants";

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
    for (const [tenantId, secrets] of await findSigningSecrets(db, missing)) {
      cache.set(tenantId, { secrets, expiresAtMs: nowMs + TTL_MS });
      result.set(tenantId, secrets);
    }
  }
  return result;
}

/** Forget cached secrets (after a rotation in this isolate). */
export function forgetTenantSecrets(tenantId: string): void {
  cache.delete(tenantId);
}
