import type { AlertDelivery, AlertKind, AlertResolution, AlertState } from "../core/alerts/alerts";
import type { JobStores } from "./databases";
import { onFailureUrlsOf } from "./job-lookups";
import { addClause, addCursor, selectPage, type TimeCursor, where } from "./page";

export interface AlertRow {
  id: string;
  tenant_id: string;
  job_id: string | null;
  run_id: string | null;
  kind: AlertKind;
  dedup_key: string;
  message: string;
  details_json: string;
  created_at_ms: number;
  delivered_at_ms: number | null;
  delivery_error: string | null;
  resolved_at_ms: number | null;
  acknowledged_at_ms: number | null;
  resolution: AlertResolution | null;
  delivery: AlertDelivery;
}

/** The SQL condition of each state (resolved wins over acknowledged, as in alertStateOf). */
const STATE_CLAUSES: Record<AlertState, string> = {
  open: "resolved_at_ms IS NULL AND acknowledged_at_ms IS NULL",
  acknowledged: "resolved_at_ms IS NULL AND acknowledged_at_ms IS NOT NULL",
  resolved: "resolved_at_ms IS NOT NULL",
};

export async function listAlerts(
  db: D1Database,
  tenantId: string,
  page: { kind?: string; state?: AlertState; cursor?: TimeCursor; limit: number },
): Promise<AlertRow[]> {
  const filter = where("tenant_id = ?", tenantId);
  if (page.kind !== undefined) addClause(filter, "kind = ?", page.kind);
  if (page.state !== undefined) addClause(filter, STATE_CLAUSES[page.state]);
  addCursor(filter, "created_at_ms", page.cursor);
  return selectPage<AlertRow>(db, "alerts", filter, "created_at_ms", page.limit);
}

/**
 * Acknowledges the tenant's alert (null: no such alert in this tenant). Idempotent: the first
 * acknowledgement's time stays; a resolved alert stays as it is.
 */
export async function acknowledgeAlert(
  db: D1Database,
  tenantId: string,
  id: string,
  nowMs: number,
): Promise<AlertRow | null> {
  return db
    .prepare(
      `UPDATE alerts SET acknowledged_at_ms = COALESCE(acknowledged_at_ms, ?1)
       WHERE id = ?2 AND tenant_id = ?3 AND resolved_at_ms IS NULL RETURNING *`,
    )
    .bind(nowMs, id, tenantId)
    .first<AlertRow>()
    .then((row) => row ?? findAlert(db, tenantId, id));
}

/** Resolves the tenant's alert (null: no such alert). Idempotent: the first resolution stays. */
export async function resolveAlert(
  db: D1Database,
  tenantId: string,
  id: string,
  nowMs: number,
): Promise<AlertRow | null> {
  return db
    .prepare(
      `UPDATE alerts SET resolved_at_ms = COALESCE(resolved_at_ms, ?1),
         resolution = COALESCE(resolution, 'operator')
       WHERE id = ?2 AND tenant_id = ?3 RETURNING *`,
    )
    .bind(nowMs, id, tenantId)
    .first<AlertRow>();
}

export async function findAlert(db: D1Database, tenantId: string, id: string): Promise<AlertRow | null> {
  return db
    .prepare("SELECT * FROM alerts WHERE id = ? AND tenant_id = ?")
    .bind(id, tenantId)
    .first<AlertRow>();
}

/** An open missed_run alert: its job and the instant it missed (RFC 3339 in details). */
export interface OpenMissedRunAlert {
  id: string;
  tenantId: string;
  jobId: string;
  /** The run still waiting when the alert was raised, or null when none was made yet. */
  runId: string | null;
  scheduledAtMs: number;
}

/**
 * Open missed_run alerts, oldest first (at most `limit`). The maintenance pass asks each job's
 * shard whether the job fired since (a consumer took a run of its schedule at or after the
 * missed instant), and resolves those that did (resolveAlertsJobFired).
 * `details.scheduled_at` is RFC 3339 UTC; it is floored to the second, which no other instant of
 * the job can fall inside.
 */
export async function listOpenMissedRunAlerts(db: D1Database, limit: number): Promise<OpenMissedRunAlert[]> {
  const { results } = await db
    .prepare(
      `SELECT id, tenant_id AS tenantId, job_id AS jobId, run_id AS runId,
         strftime('%s', json_extract(details_json, '$.scheduled_at')) * 1000 AS scheduledAtMs
       FROM alerts WHERE kind = 'missed_run' AND resolved_at_ms IS NULL AND job_id IS NOT NULL
       ORDER BY created_at_ms LIMIT ?`,
    )
    .bind(limit)
    .all<OpenMissedRunAlert>();
  return results.filter((alert) => Number.isFinite(alert.scheduledAtMs));
}

/** Resolves the given missed_run alerts as 'job_fired_again'; returns how many changed. */
export async function resolveAlertsJobFired(
  db: D1Database,
  ids: readonly string[],
  nowMs: number,
): Promise<number> {
  return resolveOpenAlerts(db, ids, "job_fired_again", nowMs);
}

/** Resolves the given alerts that are still open, with `resolution`; returns how many changed. */
async function resolveOpenAlerts(
  db: D1Database,
  ids: readonly string[],
  resolution: AlertResolution,
  nowMs: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .prepare(
      `UPDATE alerts SET resolved_at_ms = ?, resolution = ?
       WHERE resolved_at_ms IS NULL AND id IN (SELECT value FROM json_each(?))`,
    )
    .bind(nowMs, resolution, JSON.stringify(ids))
    .run();
  return result.meta.changes ?? 0;
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

/**
 * Alerts not yet handed to the side-delivery queue (pending, or failed before deliveries went
 * through it): those with these dedup keys, or every one created after `createdAfterMs`; the
 * on_failure URLs of their jobs come from the job databases.
 */
export async function listUnsentAlerts(
  db: D1Database,
  stores: JobStores,
  which: { dedupKeys: readonly string[] } | { createdAfterMs: number },
  limit: number,
): Promise<PendingAlertRow[]> {
  const byKeys = "dedupKeys" in which;
  const filter = byKeys ? "a.dedup_key IN (SELECT value FROM json_each(?1))" : "a.created_at_ms > ?1";
  const { results } = await db
    .prepare(
      `SELECT a.*, t.alert_webhook_url, t.signing_secret, t.signing_secret_next
       FROM alerts a JOIN tenants t ON t.id = a.tenant_id
       WHERE a.delivery IN ('pending', 'failed') AND ${filter}
         AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = a.id) LIMIT ?2`,
    )
    .bind(byKeys ? JSON.stringify(which.dedupKeys) : which.createdAfterMs, limit)
    .all<Omit<PendingAlertRow, "on_failure">>();
  const jobIds = results.flatMap((row) => (row.job_id === null ? [] : [row.job_id]));
  const onFailure = jobIds.length === 0 ? new Map<string, string>() : await onFailureUrlsOf(stores, jobIds);
  return results.map((row) => ({ ...row, on_failure: (row.job_id && onFailure.get(row.job_id)) || null }));
}

/** Records a delivery attempt: delivered (at a time), failed (with the error), or none (no URL). */
export async function recordAlertDelivery(
  db: D1Database,
  id: string,
  attempt: { delivery: Exclude<AlertDelivery, "pending">; atMs: number; error: string | null },
): Promise<void> {
  await db
    .prepare("UPDATE alerts SET delivery = ?, delivered_at_ms = ?, delivery_error = ? WHERE id = ?")
    .bind(attempt.delivery, attempt.delivery === "delivered" ? attempt.atMs : null, attempt.error, id)
    .run();
}

/** The open (unresolved) tenant_throttled alerts: at most one per tenant is raised while it lasts. */
export async function listOpenTenantThrottledAlerts(
  db: D1Database,
): Promise<{ id: string; tenantId: string }[]> {
  const { results } = await db
    .prepare(
      "SELECT id, tenant_id AS tenantId FROM alerts WHERE kind = 'tenant_throttled' AND resolved_at_ms IS NULL",
    )
    .all<{ id: string; tenantId: string }>();
  return results;
}

/** Resolves tenant_throttled alerts whose tenant no longer waits for its share; returns how many changed. */
export async function resolveAlertsThrottleEnded(
  db: D1Database,
  ids: readonly string[],
  nowMs: number,
): Promise<number> {
  return resolveOpenAlerts(db, ids, "throttle_ended", nowMs);
}
