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

/** An alert as the API lists it. The webhook body (alertWebhookBody) is built from this. */
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

/** An alert as its webhook sends it: what the API shows, for its tenant, without delivery state. */
export function alertWebhookBody(row: AlertRow) {
  const { delivered_at: _deliveredAt, resolved_at: _resolvedAt, ...alert } = alertResource(row);
  return { ...alert, tenant_id: row.tenant_id };
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

/** An alert to record: the columns a raise sets (the details object is stored as JSON). */
export interface NewAlertRow {
  id: string;
  tenantId: string;
  jobId: string | null;
  runId: string | null;
  kind: string;
  dedupKey: string;
  message: string;
  details: Record<string, unknown>;
}

/** Records alerts in one statement; an alert whose dedup key is already stored is skipped. */
export async function insertAlerts(
  db: D1Database,
  alerts: readonly NewAlertRow[],
  nowMs: number,
): Promise<void> {
  if (alerts.length === 0) return;
  const rows = alerts.map((alert) => ({
    id: alert.id,
    tenantId: alert.tenantId,
    jobId: alert.jobId,
    runId: alert.runId,
    kind: alert.kind,
    dedupKey: alert.dedupKey,
    message: alert.message,
    details: JSON.stringify(alert.details),
  }));
  await db
    .prepare(
      `INSERT OR IGNORE INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
       SELECT json_extract(value, '$.id'), json_extract(value, '$.tenantId'), json_extract(value, '$.jobId'),
         json_extract(value, '$.runId'), json_extract(value, '$.kind'), json_extract(value, '$.dedupKey'),
         json_extract(value, '$.message'), json_extract(value, '$.details'), ?2
       FROM json_each(?1)`,
    )
    .bind(JSON.stringify(rows), nowMs)
    .run();
}

/** An undelivered alert with where and how to deliver it: its tenant's webhook and secrets. */
export interface PendingAlertRow extends AlertRow {
  alert_webhook_url: string | null;
  signing_secret: string;
  signing_secret_next: string | null;
  /** The job's on_failure URL, if the alert names a job. */
  on_failure: string | null;
}

/** Undelivered alerts: those with these dedup keys, or every one created after `createdAfterMs`. */
export async function listUndeliveredAlerts(
  db: D1Database,
  which: { dedupKeys: readonly string[] } | { createdAfterMs: number },
  limit: number,
): Promise<PendingAlertRow[]> {
  const byKeys = "dedupKeys" in which;
  const filter = byKeys ? "a.dedup_key IN (SELECT value FROM json_each(?1))" : "a.created_at_ms > ?1";
  const { results } = await db
    .prepare(
      `SELECT a.*, t.alert_webhook_url, t.signing_secret, t.signing_secret_next,
              json_extract(j.spec_json, '$.on_failure') AS on_failure
       FROM alerts a JOIN tenants t ON t.id = a.tenant_id LEFT JOIN jobs j ON j.id = a.job_id
       WHERE a.delivered_at_ms IS NULL AND ${filter} LIMIT ?2`,
    )
    .bind(byKeys ? JSON.stringify(which.dedupKeys) : which.createdAfterMs, limit)
    .all<PendingAlertRow>();
  return results;
}

/** Records a delivery attempt: delivered (a time, no error) or not (null, with the error). */
export async function recordAlertDelivery(
  db: D1Database,
  id: string,
  attempt: { deliveredAtMs: number | null; error: string | null },
): Promise<void> {
  await db
    .prepare("UPDATE alerts SET delivered_at_ms = ?, delivery_error = ? WHERE id = ?")
    .bind(attempt.deliveredAtMs, attempt.error, id)
    .run();
}
