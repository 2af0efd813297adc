// Puts side deliveries on their queue (the queue's consumer: ../delivery/side-deliveries.ts).
// Alerts, on_failure calls and QStash callbacks are sent from the shard, the maintenance pass, the
// consumers and the QStash door alike, so the sending lives here, below all of them.
import { jsonBytes, QUEUE_SEND_LIMITS, splitIntoBatches } from "../core/load/queue-limits";
import { logEvent } from "../log";
import type { SideDelivery, SideDeliveryMessage } from "./side-delivery-types";

export const SIDE_DELIVERY_QUEUE_NAME = "edgecron-side-deliveries";

/** A body too large for a queue message waits in KV this long (retries span about an hour). */
const OVERFLOW_BODY_TTL_SECONDS = 2 * 86_400;
const overflowBodyKey = (deliveryId: string) => `side-delivery-body:${deliveryId}`;

/**
 * Sends each delivery as its own queue message (split to the queue's size limits). A body too
 * large for a message (a failure callback carries the source message's body and a workflow run's
 * initial payload, base64) goes by reference: kept in KV, read back by the consumer. Throws when
 * a send fails: the caller keeps its record pending and a later pass sends it again.
 *
 * @example await enqueueSideDeliveries(env, [{ id, idempotencyKey: id, purpose, url,
 *   method: "POST", headers: { "content-type": "application/json" }, body: "{}",
 *   signing: { style: "edgecron", tenantId, runId: null, attempt: null }, timeoutMs: 10_000 }]);
 */
export async function enqueueSideDeliveries(env: Env, deliveries: readonly SideDelivery[]): Promise<void> {
  const messages: SideDeliveryMessage[] = [];
  for (const delivery of deliveries) {
    const message: SideDeliveryMessage = { kind: "side_delivery", delivery };
    if (jsonBytes(message) <= QUEUE_SEND_LIMITS.maxMessageBytes) {
      messages.push(message);
      continue;
    }
    const byReference: SideDeliveryMessage = {
      kind: "side_delivery",
      delivery: { ...delivery, body: null },
      bodyRef: overflowBodyKey(delivery.id),
    };
    if (delivery.body === null || jsonBytes(byReference) > QUEUE_SEND_LIMITS.maxMessageBytes) {
      // Headers this large are a bug of the caller: refuse it loudly, send the rest.
      logEvent("side_delivery.too_large", { id: delivery.id, purpose: delivery.purpose.kind });
      continue;
    }
    await env.DEDUP_KV.put(overflowBodyKey(delivery.id), delivery.body, {
      expirationTtl: OVERFLOW_BODY_TTL_SECONDS,
    });
    messages.push(byReference);
  }
  for (const batch of splitIntoBatches(messages, jsonBytes)) {
    await env.SIDE_DELIVERY_QUEUE.sendBatch(batch.map((body) => ({ body, contentType: "json" as const })));
  }
}

/** The message's delivery with its body (read back when it went by reference); null when gone. */
export async function deliveryOf(env: Env, message: SideDeliveryMessage): Promise<SideDelivery | null> {
  if (message.bodyRef === undefined) return message.delivery;
  const body = await env.DEDUP_KV.get(message.bodyRef);
  return body === null ? null : { ...message.delivery, body };
}
