// Alerts: recorded once in D1 (deduplicated by key), then delivered, signed like job calls, to the
// tenant's alert webhook and, for a dead-lettered run, to the job's on_failure URL. Delivery is
// best effort here; maintenance retries what was not delivered.
import { targetAddressProblem } from "./core/ssrf";
import { logEvent } from "./log";
import { signatureHeader } from "./queue/target-call";

export type AlertKind = "dead_lettered" | "paused_after_failures" | "missed_run";

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
  await env.DB.prepare(
    `INSERT OR IGNORE INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
     SELECT json_extract(value, '$.id'), json_extract(value, '$.tenantId'), json_extract(value, '$.jobId'),
       json_extract(value, '$.runId'), json_extract(value, '$.kind'), json_extract(value, '$.dedupKey'),
       json_extract(value, '$.message'), json_extract(value, '$.details'), ?2
     FROM json_each(?1)`,
  )
    .bind(JSON.stringify(rows.map((row) => ({ ...row, details: JSON.stringify(row.details) }))), nowMs)
    .run();
  await deliverPending(
    env,
    rows.map((row) => row.dedupKey),
    new Map(rows.map((row) => [row.dedupKey, row.extraUrl ?? null])),
  );
}

interface PendingAlertRow {
  id: string;
  tenant_id: string;
  job_id: string | null;
  run_id: string | null;
  kind: string;
  dedup_key: string;
  message: string;
  details_json: string;
  created_at_ms: number;
  alert_webhook_url: string | null;
  signing_secret: string;
  signing_secret_next: string | null;
  on_failure: string | null;
}

/** Delivers undelivered alerts (the given keys, or every recent undelivered one). */
export async function deliverPending(
  env: Env,
  dedupKeys: string[] | null,
  extraUrls: Map<string, string | null> = new Map(),
): Promise<number> {
  const filter =
    dedupKeys === null ? "a.created_at_ms > ?1" : "a.dedup_key IN (SELECT value FROM json_each(?1))";
  const { results } = await env.DB.prepare(
    `SELECT a.*, t.alert_webhook_url, t.signing_secret, t.signing_secret_next,
            json_extract(j.spec_json, '$.on_failure') AS on_failure
     FROM alerts a JOIN tenants t ON t.id = a.tenant_id LEFT JOIN jobs j ON j.id = a.job_id
     WHERE a.delivered_at_ms IS NULL AND ${filter} LIMIT 100`,
  )
    .bind(dedupKeys === null ? Date.now() - 3_600_000 : JSON.stringify(dedupKeys))
    .all<PendingAlertRow>();
  let delivered = 0;
  for (const alert of results) {
    const urls = [
      alert.alert_webhook_url,
      alert.kind === "dead_lettered" ? (extraUrls.get(alert.dedup_key) ?? alert.on_failure) : null,
    ].filter((url): url is string => typeof url === "string" && url.length > 0);
    const error = urls.length === 0 ? null : await deliver(alert, urls, env);
    await env.DB.prepare("UPDATE alerts SET delivered_at_ms = ?, delivery_error = ? WHERE id = ?")
      .bind(urls.length === 0 || error === null ? Date.now() : null, error, alert.id)
      .run();
    if (error === null) delivered += 1;
  }
  return delivered;
}

async function deliver(alert: PendingAlertRow, urls: string[], env: Env): Promise<string | null> {
  const body = JSON.stringify({
    id: alert.id,
    kind: alert.kind,
    tenant_id: alert.tenant_id,
    job_id: alert.job_id,
    run_id: alert.run_id,
    message: alert.message,
    details: JSON.parse(alert.details_json) as unknown,
    created_at: new Date(alert.created_at_ms).toISOString(),
  });
  const secrets = [alert.signing_secret, ...(alert.signing_secret_next ? [alert.signing_secret_next] : [])];
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
