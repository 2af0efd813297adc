import { iso } from "../../../core/common/stored-values";
import type { TenantRow } from "../../../service/tenants/manage-tenants";

/** The tenant resource of docs/API.md (its secrets included: only the admin and its own key see it). */
export function tenantResource(row: TenantRow) {
  return {
    id: row.id,
    name: row.name,
    alert_webhook_url: row.alert_webhook_url,
    signing_secret: row.signing_secret,
    signing_secret_next: row.signing_secret_next,
    created_at: iso(row.created_at_ms),
    suspended_at: row.suspended_at_ms == null ? null : iso(row.suspended_at_ms),
  };
}
