// What an alert says, in one shape for the API (GET /v1/alerts) and the webhook its tenant is
// sent when it is raised (./raise-alerts.ts): the webhook body is the resource without where the
// alert stands, plus its tenant.
import { alertStateOf } from "../core/alerts/alerts";
import { iso, isoOrNull, parseJsonColumn } from "../core/common/stored-values";
import type { AlertRow } from "../db/alerts";

/** What an alert says, for the API and the webhook alike. */
function alertContent(row: AlertRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    run_id: row.run_id,
    kind: row.kind,
    message: row.message,
    details: parseJsonColumn<unknown>(row.details_json, {}),
    created_at: iso(row.created_at_ms),
  };
}

/** An alert as the API lists it: what it says, where it stands, whether it reached anyone. */
export function alertResource(row: AlertRow) {
  return {
    ...alertContent(row),
    state: alertStateOf({ acknowledgedAtMs: row.acknowledged_at_ms, resolvedAtMs: row.resolved_at_ms }),
    delivery: row.delivery,
    delivered_at: isoOrNull(row.delivered_at_ms),
    delivery_error: row.delivery_error,
    acknowledged_at: isoOrNull(row.acknowledged_at_ms),
    resolved_at: isoOrNull(row.resolved_at_ms),
    resolution: row.resolution,
  };
}

/** An alert as its webhook sends it when raised: what it says, for its tenant, not where it stands. */
export function alertWebhookBody(row: AlertRow) {
  return { ...alertContent(row), tenant_id: row.tenant_id };
}
