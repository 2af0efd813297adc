// Side deliveries (alerts, on_failure calls): one queue message per URL, signed like a job's call,
// retried with backoff by the side-delivery consumer, their state recorded per URL and summed up on
// the alert.
import { createExecutionContext, createMessageBatch, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { markAlertDeliveriesSent } from "../../src/db/alert-deliveries";
import { handleSideDeliveryBatch, sideDeliveryRetryDelaySeconds } from "../../src/delivery/side-deliveries";
import type { SideDelivery, SideDeliveryMessage } from "../../src/queue/side-delivery-types";
import {
  SIGNING_SECRET,
  seedTenant,
  TENANT_ID,
  targetCalls,
  targetCallVerifies,
  targetUrl,
} from "../helpers/scheduling";
import { seedAlert } from "../helpers/seed";

beforeAll(() => seedTenant());

let counter = 0;

/** An alert with one delivery row per target, as raiseAlerts leaves it once it has sent them. */
async function sentAlert(urls: Partial<Record<"webhook" | "on_failure", string>>): Promise<string> {
  const alertId = await seedAlert({ tenantId: TENANT_ID });
  await markAlertDeliveriesSent(
    env.DB,
    Object.entries(urls).map(([target, url]) => ({
      alertId,
      target: target as "webhook" | "on_failure",
      url: url as string,
    })),
    Date.now(),
  );
  return alertId;
}

function delivery(alertId: string, target: "webhook" | "on_failure", url: string): SideDelivery {
  return {
    id: `${alertId}:${target}`,
    idempotencyKey: alertId,
    purpose: { kind: "alert", alertId, target },
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: alertId }),
    signing: { style: "edgecron", tenantId: TENANT_ID, runId: null, attempt: null },
    timeoutMs: 5_000,
  };
}

/** Delivers one message at the given attempt; returns what the consumer did with it. */
async function deliverOnce(item: SideDelivery, attempts = 1) {
  counter += 1;
  const batch = createMessageBatch<SideDeliveryMessage>("edgecron-side-deliveries", [
    {
      id: `side-${counter}`,
      timestamp: new Date(),
      attempts,
      body: { kind: "side_delivery", delivery: item },
    },
  ]);
  const message = batch.messages[0] as Message<SideDeliveryMessage>;
  const ack = vi.spyOn(message, "ack");
  const retry = vi.spyOn(message, "retry");
  const ctx = createExecutionContext();
  const startedAtMs = Date.now();
  await handleSideDeliveryBatch(batch, env, ctx);
  const handled = {
    acked: ack.mock.calls.length > 0,
    retries: retry.mock.calls.map((call) => call[0]),
    batchMs: Date.now() - startedAtMs,
  };
  await waitOnExecutionContext(ctx);
  return handled;
}

async function attemptsOf(alertId: string): Promise<number | undefined> {
  const row = await env.DB.prepare("SELECT attempts FROM alert_deliveries WHERE alert_id = ?")
    .bind(alertId)
    .first<{ attempts: number }>();
  return row?.attempts;
}

async function alertDelivery(alertId: string) {
  return env.DB.prepare("SELECT delivery, delivered_at_ms, delivery_error FROM alerts WHERE id = ?")
    .bind(alertId)
    .first<{ delivery: string; delivered_at_ms: number | null; delivery_error: string | null }>();
}

describe("the side-delivery consumer", () => {
  it("delivers signed with the tenant's secret and the alert id as Idempotency-Key", async () => {
    const path = `/ok/side/${Date.now().toString(36)}`;
    const alertId = await sentAlert({ webhook: targetUrl(path) });
    expect(await deliverOnce(delivery(alertId, "webhook", targetUrl(path)))).toMatchObject({
      acked: true,
      retries: [],
    });
    const [call] = await targetCalls(path);
    expect(call?.headers["idempotency-key"]).toBe(alertId);
    expect(await targetCallVerifies(call!, [SIGNING_SECRET])).toBe(true);
    expect(await alertDelivery(alertId)).toMatchObject({ delivery: "delivered", delivery_error: null });
  });

  it("calls an alert delivered only once every one of its URLs is", async () => {
    const stamp = Date.now().toString(36);
    const hook = targetUrl(`/ok/side-hook/${stamp}`);
    const onFailure = targetUrl(`/flaky/1/side-on-failure/${stamp}`);
    const alertId = await sentAlert({ webhook: hook, on_failure: onFailure });
    await deliverOnce(delivery(alertId, "webhook", hook));
    expect((await alertDelivery(alertId))?.delivery).toBe("pending");
    // The on_failure URL fails once: the alert is failed, naming it, until its retry succeeds.
    expect((await deliverOnce(delivery(alertId, "on_failure", onFailure))).retries).toEqual([
      { delaySeconds: 5 },
    ]);
    expect(await alertDelivery(alertId)).toMatchObject({
      delivery: "failed",
      delivery_error: `${onFailure}: HTTP 503`,
    });
    await deliverOnce(delivery(alertId, "on_failure", onFailure), 2);
    expect(await alertDelivery(alertId)).toMatchObject({ delivery: "delivered", delivery_error: null });
    expect((await alertDelivery(alertId))?.delivered_at_ms).toEqual(expect.any(Number));
    // The webhook, delivered already, was not called again.
    expect(await targetCalls(`/ok/side-hook/${stamp}`)).toHaveLength(1);
  });

  it("retries a failing URL with backoff through the queue, then gives up after about an hour", async () => {
    const url = targetUrl(`/status/500/side/${Date.now().toString(36)}`);
    const alertId = await sentAlert({ webhook: url });
    expect(await deliverOnce(delivery(alertId, "webhook", url), 1)).toMatchObject({
      acked: false,
      retries: [{ delaySeconds: 5 }],
    });
    expect((await deliverOnce(delivery(alertId, "webhook", url), 3)).retries).toEqual([{ delaySeconds: 20 }]);
    expect((await deliverOnce(delivery(alertId, "webhook", url), 10)).retries).toEqual([
      { delaySeconds: 300 },
    ]);
    expect(await deliverOnce(delivery(alertId, "webhook", url), 18)).toMatchObject({
      acked: true,
      retries: [],
    });
    expect(await alertDelivery(alertId)).toMatchObject({
      delivery: "failed",
      delivery_error: `${url}: HTTP 500`,
    });
    const totalSeconds = Array.from({ length: 17 }, (_, index) =>
      sideDeliveryRetryDelaySeconds(index + 1),
    ).reduce((sum, seconds) => sum + seconds);
    expect(totalSeconds).toBeGreaterThan(55 * 60);
    expect(totalSeconds).toBeLessThan(65 * 60);
  });

  it("never retries a URL its address checks refuse", async () => {
    const url = "ftp://example.com/hook";
    const alertId = await sentAlert({ webhook: url });
    expect(await deliverOnce(delivery(alertId, "webhook", url))).toMatchObject({ acked: true, retries: [] });
    expect((await alertDelivery(alertId))?.delivery).toBe("failed");
  });

  it("hands a silent receiver off: the batch ends, the attempt is recorded when it ends", async () => {
    const path = `/slow/2500/side/${Date.now().toString(36)}`;
    const alertId = await sentAlert({ webhook: targetUrl(path) });
    const handled = await deliverOnce(delivery(alertId, "webhook", targetUrl(path)));
    expect(handled).toMatchObject({ acked: true, retries: [] });
    expect(handled.batchMs).toBeLessThan(2_000);
    // waitOnExecutionContext waited for the handed-off attempt: it answered 200 and was recorded.
    expect(await alertDelivery(alertId)).toMatchObject({ delivery: "delivered", delivery_error: null });
  });

  it("sends a handed-off attempt that failed back to the queue, counting the attempts made", async () => {
    const url = targetUrl(`/slow/5000/side-timeout/${Date.now().toString(36)}`);
    const alertId = await sentAlert({ webhook: url });
    // Times out after 1.5 s: handed off at 1 s, failed, retried by a new message 5 s later.
    const handled = await deliverOnce({ ...delivery(alertId, "webhook", url), timeoutMs: 1_500 });
    expect(handled).toMatchObject({ acked: true, retries: [] });
    expect(await attemptsOf(alertId)).toBe(1);
    expect((await alertDelivery(alertId))?.delivery).toBe("failed");
    await vi.waitFor(async () => expect(await attemptsOf(alertId)).toBe(2), {
      timeout: 15_000,
      interval: 200,
    });
  });
});
