import { iso, isoOrNull } from "../../../core/common/stored-values";
import type { ApiKeyRow } from "../../../service/api-keys";

/** The key resource; `key` (plaintext) only exists in the create response. */
export function apiKeyResource(row: ApiKeyRow, key?: string) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    ...(key === undefined ? {} : { key }),
    key_prefix: row.key_prefix,
    created_at: iso(row.created_at_ms),
    revoked_at: isoOrNull(row.revoked_at_ms),
  };
}
