import { addClause, addCursor, selectPage, type TimeCursor, where } from "./page";
import { iso, isoOrNull, parseJsonColumn } from "./time";

export interface AlertRow {
  id: string;
  tenant_id: string;
  job_id: string | null;
  run_id: string | null;
  kind: string;
  dedup_key: string;
  message: string;
  details_json: string;
  created_at_ms: number;
  delivered_at_ms: number | null;
  delivery_error: string | null;
  resolved_at_ms: number | null;
}

export function alertResource(row: AlertRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    run_id: row.run_id,
    kind: row.kind,
    message: row.message,
    details: parseJsonColumn<unknown>(row.details_json, {}),
    created_at: iso(row.created_at_ms),
    delivered_at: isoOrNull(row.delivered_at_ms),
    resolved_at: isoOrNull(row.resolved_at_ms),
  };
}

export async function listAlerts(
  db: D1Database,
  tenantId: string,
  page: { kind?: string; cursor?: TimeCursor; limit: number },
): Promise<AlertRow[]> {
  const filter = where("tenant_id = ?", tenantId);
  if (page.kind !== undefined) addClause(filter, "kind = ?", page.kind);
  addCursor(filter, "created_at_ms", page.cursor);
  return selectPage<AlertRow>(db, "alerts", filter, "created_at_ms", page.limit);
}
