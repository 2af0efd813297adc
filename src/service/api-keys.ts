// Tenants' API keys: made (the key shown once, only its SHA-256 stored), listed without their
// secrets, revoked once, and found by their hash when a request or a console sign-in presents one.
import { sha256Hex } from "../core/common/encoding";
import { EdgecronError } from "../core/common/errors";
import {
  type ApiKeyRow,
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey as revokeStoredApiKey,
} from "../db/api-keys";
import { findTenant } from "../db/tenants";
import { newId, requireOwnId } from "./ids";
import { newApiKey } from "./random-secrets";
import { tenantNotFound } from "./tenants/suspend-tenant";

export type { ApiKeyRow };

function apiKeyNotFound(): EdgecronError {
  return new EdgecronError("api_key_not_found", "No such API key");
}

/** A new key for the tenant: its row, and the key itself (never stored, so shown only now). */
export async function createApiKey(
  env: Env,
  input: { tenantId: string; name: string | null },
  nowMs: number,
): Promise<{ row: ApiKeyRow; key: string }> {
  const tenant = await findTenant(env.DB, input.tenantId);
  if (tenant === null) throw tenantNotFound(input.tenantId);
  const key = newApiKey();
  const row: ApiKeyRow = {
    id: newId("key", nowMs),
    tenant_id: tenant.id,
    key_hash: await sha256Hex(key),
    key_prefix: key.slice(0, 11),
    name: input.name,
    created_at_ms: nowMs,
    revoked_at_ms: null,
  };
  await insertApiKey(env.DB, row);
  return { row, key };
}

/** The tenant's keys, newest first (at most 1000). */
export function listTenantApiKeys(env: Env, tenantId: string): Promise<ApiKeyRow[]> {
  return listApiKeys(env.DB, tenantId);
}

/** Revokes the key named by `rawId` (a second revoke keeps the first instant); 404 when unknown. */
export async function revokeApiKey(env: Env, rawId: string, nowMs: number): Promise<ApiKeyRow> {
  const id = requireOwnId(rawId, "key", apiKeyNotFound);
  if ((await findApiKey(env.DB, id)) === null) throw apiKeyNotFound();
  await revokeStoredApiKey(env.DB, id, nowMs);
  const row = await findApiKey(env.DB, id);
  if (row === null) throw apiKeyNotFound();
  return row;
}

/** The key whose SHA-256 this is, revoked or not; null when none. */
export function apiKeyByHash(env: Env, keyHash: string): Promise<ApiKeyRow | null> {
  return findApiKeyByHash(env.DB, keyHash);
}
