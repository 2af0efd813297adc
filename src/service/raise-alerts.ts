// Alerts: recorded once in D1 (deduplicated by key), then handed to the side-delivery queue, one
// message per URL (the tenant's alert webhook and, for a dead-lettered run, the job's on_failure
// URL), each signed like a job's call and retried with backoff by that queue's consumer. Raising
// an alert never waits for a receiver: a hanging webhook cannot hold the shard or maintenance
// alarm (or the dead-letter consumer) that raised it.
import type { AlertDeliveryTarget, AlertKind } from "../core/alerts/alerts";
import {
  listStaleAlertDeliveries,
  markAlertDeliveriesSent,
  type NewAlertDelivery,
} from "../db/alert-deliveries";
import { insertAlerts, listUnsentAlerts, type PendingAlertRow, recordAlertDelivery } from "../db/alerts";
import { jobStores } from "../db/databases";
import { logEvent } from "../log";
import { enqueueSideDeliveries } from "../queue/side-delivery-queue";
import type { SideDelivery } from "../queue/side-delivery-types";
import { alertWebhookBody } from "./alert-bodies";

export interface NewAlert {
  tenantId: string;
  jobId: string | null;
  runId: string | null;
  kind: AlertKind;
  dedupKey: string;
  message: string;
  details: Record<string, unknown>;
  /** Extra delivery target besides the tenant webhook (the job's on_failure URL). */
  extraUrl?: string | null;
}

/** Per attempt: the consumer's batch waits at most this long for a hanging receiver. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Alerts handed to the queue per call; maintenance picks up the rest on its next pass. */
const DELIVERIES_PER_CALL = 100;
/** Maintenance sends again deliveries of alerts created within this window... */
const REDELIVERY_WINDOW_MS = 3_600_000;
/** ...that no attempt touched for this long (longer than the longest backoff, 5 min). */
const STALE_DELIVERY_MS = 10 * 60_000;

export async function raiseAlerts(env: Env, alerts: NewAlert[]): Promise<void> {
  if (alerts.length === 0) return;
  const nowMs = Date.now();
  for (const alert of alerts) {
    logEvent("alert.raised", {
      tenant_id: alert.tenantId,
      job_id: alert.jobId,
      run_id: alert.runId,
      kind: alert.kind,
    });
  }
  const rows = alerts.map((alert) => ({ ...alert, id: `alt_${crypto.randomUUID().replaceAll("-", "")}` }));
  await insertAlerts(env.DB, rows, nowMs);
  await sendUnsent(
    env,
    { dedupKeys: rows.map((row) => row.dedupKey) },
    new Map(rows.map((row) => [row.dedupKey, row.extraUrl ?? null])),
  );
}

/**
 * Maintenance's share: alerts never handed to the queue (a send that failed), and deliveries
 * whose messages were lost (a local queue forgets them on restart). Returns how many it sent
 * (one per URL).
 */
export async function resendPendingAlerts(env: Env, nowMs: number): Promise<number> {
  const createdAfterMs = nowMs - REDELIVERY_WINDOW_MS;
  const unsent = await sendUnsent(env, { createdAfterMs });
  const stale = await listStaleAlertDeliveries(
    env.DB,
    { createdAfterMs, staleBeforeMs: nowMs - STALE_DELIVERY_MS },
    DELIVERIES_PER_CALL,
  );
  await send(
    env,
    stale.map((row) => ({ alert: row, target: row.target, url: row.url })),
  );
  return unsent + stale.length;
}

type AlertUrl = { alert: PendingAlertRow } & Omit<NewAlertDelivery, "alertId">;

async function sendUnsent(
  env: Env,
  which: { dedupKeys: string[] } | { createdAfterMs: number },
  extraUrls: Map<string, string | null> = new Map(),
): Promise<number> {
  const alerts = await listUnsentAlerts(env.DB, jobStores(env), which, DELIVERIES_PER_CALL);
  const urls: AlertUrl[] = [];
  for (const alert of alerts) {
    const onFailure =
      alert.kind === "dead_lettered" ? (extraUrls.get(alert.dedup_key) ?? alert.on_failure) : null;
    const mine = (
      [
        ["webhook", alert.alert_webhook_url],
        ["on_failure", onFailure],
      ] as const
    ).flatMap(([target, url]) => (url ? [{ alert, target, url } satisfies AlertUrl] : []));
    // An alert with nowhere to go is recorded as such (delivery none), never as delivered.
    if (mine.length === 0) {
      await recordAlertDelivery(env.DB, alert.id, { delivery: "none", atMs: Date.now(), error: null });
    }
    urls.push(...mine);
  }
  await send(env, urls);
  return urls.length;
}

/** Records each URL as sent, then sends; a failed send is logged and left to maintenance. */
async function send(env: Env, urls: AlertUrl[]): Promise<void> {
  if (urls.length === 0) return;
  await markAlertDeliveriesSent(
    env.DB,
    urls.map(({ alert, target, url }) => ({ alertId: alert.id, target, url })),
    Date.now(),
  );
  try {
    await enqueueSideDeliveries(env, urls.map(alertDelivery));
  } catch (error) {
    logEvent("alert.enqueue_failed", { deliveries: urls.length, error });
  }
}

function alertDelivery({ alert, target, url }: AlertUrl): SideDelivery {
  return {
    id: `${alert.id}:${target}`,
    // The alert id is the delivery's idempotency key (both URLs); the signature binds it, the URL and the run.
    idempotencyKey: alert.id,
    purpose: { kind: "alert", alertId: alert.id, target: target satisfies AlertDeliveryTarget },
    url,
    method: "POST",
    headers: {
      "content-type": "application/json",
      "edgecron-alert-kind": alert.kind,
      ...(alert.run_id ? { "edgecron-run-id": alert.run_id } : {}),
    },
    body: JSON.stringify(alertWebhookBody(alert)),
    signing: { style: "edgecron", tenantId: alert.tenant_id, runId: alert.run_id, attempt: null },
    timeoutMs: DELIVERY_TIMEOUT_MS,
  };
}

export async function raisePauseAlerts(
  env: Env,
  paused: { jobId: string; tenantId: string; version: number; reason: string }[],
): Promise<void> {
  await raiseAlerts(
    env,
    paused.map((job) => ({
      tenantId: job.tenantId,
      jobId: job.jobId,
      runId: null,
      kind: "paused_after_failures" as const,
      dedupKey: `paused:${job.jobId}:${job.version}`,
      message: `Job ${job.jobId} was paused: ${job.reason}`,
      details: { version: job.version, reason: job.reason },
    })),
  );
}
