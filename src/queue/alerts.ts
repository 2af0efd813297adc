// Alerts: recorded once in D1 (deduplicated by key), then delivered, signed like job calls, to the
// tenant's alert webhook and, for a dead-lettered run, to the job's on_failure URL. Delivery is
// best effort here; maintenance retries what was not delivered.
import type { AlertKind } from "../core/alert-kinds";
import { targetAddressProblem } from "../core/ssrf";
import {
  alertWebhookBody,
  insertAlerts,
  listUndeliveredAlerts,
  type PendingAlertRow,
  recordAlertDelivery,
} from "../db/alerts";
import { jobStores } from "../db/databases";
import { signingSecretsOf } from "../db/tenants";
import { logEvent } from "../log";
import { signatureHeader } from "./target-call";

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

const DELIVERY_TIMEOUT_MS = 10_000;
/** Alerts delivered per call; maintenance picks up the rest on its next pass. */
const DELIVERIES_PER_CALL = 100;
/** Maintenance retries undelivered alerts created within this window. */
const REDELIVERY_WINDOW_MS = 3_600_000;

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
  await deliverPending(
    env,
    rows.map((row) => row.dedupKey),
    new Map(rows.map((row) => [row.dedupKey, row.extraUrl ?? null])),
  );
}

/** Delivers undelivered alerts (the given keys, or every recent undelivered one). */
export async function deliverPending(
  env: Env,
  dedupKeys: string[] | null,
  extraUrls: Map<string, string | null> = new Map(),
): Promise<number> {
  const which = dedupKeys === null ? { createdAfterMs: Date.now() - REDELIVERY_WINDOW_MS } : { dedupKeys };
  const results = await listUndeliveredAlerts(env.DB, jobStores(env), which, DELIVERIES_PER_CALL);
  let delivered = 0;
  for (const alert of results) {
    const urls = [
      alert.alert_webhook_url,
      alert.kind === "dead_lettered" ? (extraUrls.get(alert.dedup_key) ?? alert.on_failure) : null,
    ].filter((url): url is string => typeof url === "string" && url.length > 0);
    // An alert with nowhere to go is recorded as such (delivery none), never as delivered.
    if (urls.length === 0) {
      await recordAlertDelivery(env.DB, alert.id, { delivery: "none", atMs: Date.now(), error: null });
      continue;
    }
    const error = await deliver(alert, urls, env);
    await recordAlertDelivery(env.DB, alert.id, {
      delivery: error === null ? "delivered" : "failed",
      atMs: Date.now(),
      error,
    });
    if (error === null) delivered += 1;
  }
  return delivered;
}

async function deliver(alert: PendingAlertRow, urls: string[], env: Env): Promise<string | null> {
  const body = JSON.stringify(alertWebhookBody(alert));
  const secrets = signingSecretsOf(alert);
  const errors: string[] = [];
  for (const url of urls) {
    try {
      const problem = targetAddressProblem(url, { allowPrivate: env.ALLOW_PRIVATE_TARGETS === "true" });
      if (problem) throw new Error(problem);
      const response = await fetch(url, {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          "content-type": "application/json",
          "user-agent": "edgecron/0.1",
          "edgecron-alert-kind": alert.kind,
          // The alert id is the delivery's idempotency key; the signature binds it, the URL and the run.
          "idempotency-key": alert.id,
          ...(alert.run_id ? { "edgecron-run-id": alert.run_id } : {}),
          "edgecron-signature": await signatureHeader(
            secrets,
            Math.floor(Date.now() / 1000),
            { method: "POST", url, idempotencyKey: alert.id, runId: alert.run_id, attempt: null },
            body,
          ),
        },
        body,
      });
      await response.body?.cancel();
      if (response.status < 200 || response.status >= 300) errors.push(`${url}: HTTP ${response.status}`);
    } catch (error) {
      errors.push(`${url}: ${String(error)}`);
    }
  }
  return errors.length === 0 ? null : errors.join("; ");
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
