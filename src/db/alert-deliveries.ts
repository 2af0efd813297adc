// Where each URL of an alert's delivery stands (migrations/0017_alert_deliveries.sql), and the
// alert's summary of them.
import type { AlertDeliveryTarget } from "../core/alerts/alerts";
import type { PendingAlertRow } from "./alerts";

export interface NewAlertDelivery {
  alertId: string;
  target: AlertDeliveryTarget;
  url: string;
}

/** Records deliveries as pending (sent to the queue now); a row already there only gets re-stamped. */
export async function markAlertDeliveriesSent(
  db: D1Database,
  deliveries: readonly NewAlertDelivery[],
  nowMs: number,
): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .prepare(
      `INSERT INTO alert_deliveries (alert_id, target, url, sent_at_ms, updated_at_ms)
       SELECT json_extract(value, '$.alertId'), json_extract(value, '$.target'), json_extract(value, '$.url'), ?2, ?2
       FROM json_each(?1) WHERE true
       ON CONFLICT (alert_id, target) DO UPDATE SET sent_at_ms = excluded.sent_at_ms, updated_at_ms = excluded.updated_at_ms`,
    )
    .bind(JSON.stringify(deliveries), nowMs)
    .run();
}

/**
 * Records one ended attempt of one URL and sums the alert up from all of its URLs in the same
 * batch: delivered (at the first time every URL was), failed (naming each failing URL's last
 * error), else pending. Idempotent: a repeated success changes nothing.
 */
export async function recordAlertDeliveryAttempt(
  db: D1Database,
  alertId: string,
  target: AlertDeliveryTarget,
  attempt: { delivered: boolean; error: string | null; atMs: number },
): Promise<void> {
  await db.batch([
    db
      .prepare(
        `UPDATE alert_deliveries SET state = ?3, last_error = ?4, attempts = attempts + 1, updated_at_ms = ?5
         WHERE alert_id = ?1 AND target = ?2 AND state <> 'delivered'`,
      )
      .bind(alertId, target, attempt.delivered ? "delivered" : "failed", attempt.error, attempt.atMs),
    db
      .prepare(
        `UPDATE alerts SET
           delivery = CASE
             WHEN NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = ?1 AND d.state <> 'delivered') THEN 'delivered'
             WHEN EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = ?1 AND d.state = 'failed') THEN 'failed'
             ELSE 'pending' END,
           delivered_at_ms = CASE
             WHEN NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = ?1 AND d.state <> 'delivered')
             THEN COALESCE(delivered_at_ms, ?2) ELSE NULL END,
           delivery_error = (SELECT group_concat(d.url || ': ' || d.last_error, '; ') FROM alert_deliveries d
             WHERE d.alert_id = ?1 AND d.state = 'failed')
         WHERE id = ?1 AND delivery <> 'none'`,
      )
      .bind(alertId, attempt.atMs),
  ]);
}

/** A delivery no attempt touched since `staleBeforeMs`, of an alert created after `createdAfterMs`. */
export interface StaleAlertDeliveryRow extends PendingAlertRow {
  target: AlertDeliveryTarget;
  url: string;
}

export async function listStaleAlertDeliveries(
  db: D1Database,
  window: { createdAfterMs: number; staleBeforeMs: number },
  limit: number,
): Promise<StaleAlertDeliveryRow[]> {
  const { results } = await db
    .prepare(
      `SELECT a.*, d.target, d.url, t.alert_webhook_url, t.signing_secret, t.signing_secret_next, NULL AS on_failure
       FROM alert_deliveries d JOIN alerts a ON a.id = d.alert_id JOIN tenants t ON t.id = a.tenant_id
       WHERE d.state <> 'delivered' AND d.updated_at_ms < ?2 AND a.created_at_ms > ?1 LIMIT ?3`,
    )
    .bind(window.createdAfterMs, window.staleBeforeMs, limit)
    .all<StaleAlertDeliveryRow>();
  return results;
}
