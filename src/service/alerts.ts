// A tenant's alerts as the API serves them: listed newest first by kind and state, acknowledged
// (seen, still unresolved) and resolved by an operator. Both are idempotent: the first time stays.
// How an alert reads is ./alert-bodies.ts.
import type { AlertState } from "../core/alerts/alerts";
import { EdgecronError } from "../core/common/errors";
import { type AlertRow, acknowledgeAlert, listAlerts, resolveAlert } from "../db/alerts";

export type { AlertRow };

export function alertNotFound(id?: string): EdgecronError {
  return new EdgecronError("alert_not_found", id === undefined ? "No such alert" : `No alert ${id}`);
}

export function listTenantAlerts(
  env: Env,
  tenantId: string,
  page: { kind?: string; state?: AlertState; cursor?: { ms: number; id: string }; limit: number },
): Promise<AlertRow[]> {
  return listAlerts(env.DB, tenantId, page);
}

export type AlertAction = "acknowledge" | "resolve";

/** The alert after the action; 404 `alert_not_found` when the tenant has no such alert. */
export async function actOnAlert(
  env: Env,
  tenantId: string,
  id: string,
  action: AlertAction,
  nowMs: number,
): Promise<AlertRow> {
  const apply = action === "acknowledge" ? acknowledgeAlert : resolveAlert;
  const row = await apply(env.DB, tenantId, id, nowMs);
  if (row === null) throw alertNotFound(id);
  return row;
}
