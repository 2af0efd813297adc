// Puts side deliveries on their queue (the queue's consumer: ../consumers/side-deliveries.ts).
// Alerts, on_failure calls and QStash callbacks are sent from the shard, the maintenance pass, the
// consumers and the QStash door alike, so the sending lives here, below all of them.
import { jsonBytes, QUEUE_SEND_LIMITS, splitIntoBatches } from "../../core/queue-limits";
import { logEvent } from "../../log";
import type { SideDelivery, SideDeliveryMessage } from "./side-delivery-types";

export const SIDE_DELIVERY_QUEUE_NAME = "edgecron-side-deliveries";

/**
 * Sends each delivery as its own queue message (split to the queue's size limits). Throws when a
 * send fails: the caller keeps its record pending and a later pass sends it again.
 *
 * @example await enqueueSideDeliveries(env, [{ id, idempotencyKey: id, purpose, url,
 *   method: "POST", headers: { "content-type": "application/json" }, body: "{}",
 *   signing: { style: "edgecron", tenantId, runId: null, attempt: null }, timeoutMs: 10_000 }]);
 */
export async function enqueueSideDeliveries(env: Env, deliveries: readonly SideDelivery[]): Promise<void> {
  const messages: SideDeliveryMessage[] = [];
  for (const delivery of deliveries) {
    const message: SideDeliveryMessage = { kind: "side_delivery", delivery };
    if (jsonBytes(message) > QUEUE_SEND_LIMITS.maxMessageBytes) {
      // A body this large is a bug of the caller (alerts are small): refuse it loudly, send the rest.
      logEvent("side_delivery.too_large", { id: delivery.id, purpose: delivery.purpose.kind });
      continue;
    }
    messages.push(message);
  }
  for (const batch of splitIntoBatches(messages, jsonBytes)) {
    await env.SIDE_DELIVERY_QUEUE.sendBatch(batch.map((body) => ({ body, contentType: "json" as const })));
  }
}
