// Side deliveries: every outbound call that is not a run's target call (alert webhooks, on_failure
// URLs, and any other callback) travels as its own message on a queue of its own and is delivered
// by that queue's consumer, never inside a shard's or the maintenance alarm. A webhook that hangs
// for its whole timeout then delays only its own delivery: no shard pass, no run of any tenant and
// no other queue's batch waits for it. Failures are retried with backoff through the queue itself.
//
// A delivery says where (url, method, headers, body), how to sign it (a signing style), and why (a
// purpose, which decides what is recorded once an attempt ends). To add a kind of delivery, add a
// purpose (./side-delivery-purposes.ts) and, if it signs differently, a signing style
// (./side-delivery-send.ts).

import { logEvent } from "../log";
import { deliveryOf } from "../queue/side-delivery-queue";
import type { SideDelivery, SideDeliveryMessage, SideDeliveryResult } from "../queue/side-delivery-types";
import { recordSideDeliveryAttempt } from "./side-delivery-purposes";
import { sendSideDelivery } from "./side-delivery-send";

/** Deliveries worked at once per consumer batch. */
const DELIVERIES_IN_FLIGHT = 16;
/** A delivery whose receiver has not answered within this is handed off (see below). */
const HANDOFF_AFTER_MS = 1_000;
/**
 * Retries back off 5 s, 10 s, 20 s ... capped at 5 min: 18 attempts span about an hour, as long as
 * alert delivery was always retried. The queue's own max_retries (wrangler.toml) is higher, so the
 * give-up is decided here and recorded.
 */
const MAX_ATTEMPTS = 18;
const FIRST_RETRY_DELAY_SECONDS = 5;
const MAX_RETRY_DELAY_SECONDS = 300;

/** Seconds before retry after failed attempt number `attempt` (1 = the first). */
export function sideDeliveryRetryDelaySeconds(attempt: number): number {
  return Math.min(MAX_RETRY_DELAY_SECONDS, FIRST_RETRY_DELAY_SECONDS * 2 ** Math.max(0, attempt - 1));
}

/**
 * The side-delivery queue's consumer: each message delivered, recorded, then acked or retried.
 * A receiver still silent after HANDOFF_AFTER_MS is handed off: its message is acked, the attempt
 * goes on under ctx.waitUntil, and a retry, if one is due, goes back to the queue as a new message
 * that carries the attempts made. The batch (and every other tenant's delivery queued behind it on
 * the local queue, which delivers one batch at a time) then waits at most that long for it. An
 * alert delivery lost with its isolate is sent again by maintenance (resendPendingAlerts).
 */
export async function handleSideDeliveryBatch(
  batch: MessageBatch<SideDeliveryMessage>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  const queue = [...batch.messages];
  const worker = async (): Promise<void> => {
    for (let message = queue.shift(); message !== undefined; message = queue.shift()) {
      await deliverMessage(message, env, ctx);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELIVERIES_IN_FLIGHT, queue.length) }, worker));
}

const HANDED_OFF = Symbol("handed off");

async function deliverMessage(message: Message<SideDeliveryMessage>, env: Env, ctx: ExecutionContext) {
  const body = message.body;
  const attempt = (body.attemptsBefore ?? 0) + message.attempts;
  const sending = sendWithBody(env, body);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    sending,
    new Promise<typeof HANDED_OFF>((resolve) => {
      timer = setTimeout(() => resolve(HANDED_OFF), HANDOFF_AFTER_MS);
    }),
  ]);
  clearTimeout(timer);
  if (first !== HANDED_OFF) {
    const retryDelaySeconds = await settle(env, body.delivery, attempt, first);
    if (retryDelaySeconds === null) message.ack();
    else message.retry({ delaySeconds: retryDelaySeconds });
    return;
  }
  message.ack();
  const late = sending.then(async (result) => {
    const retryDelaySeconds = await settle(env, body.delivery, attempt, result);
    if (retryDelaySeconds === null) return;
    await env.SIDE_DELIVERY_QUEUE.send({ ...body, attemptsBefore: attempt } satisfies SideDeliveryMessage, {
      contentType: "json",
      delaySeconds: retryDelaySeconds,
    });
  });
  ctx.waitUntil(
    late.catch((error) => logEvent("side_delivery.requeue_failed", { id: body.delivery.id, attempt, error })),
  );
}

/** Sends the delivery, its body read back first when it went by reference. */
async function sendWithBody(env: Env, message: SideDeliveryMessage): Promise<SideDeliveryResult> {
  const delivery = await deliveryOf(env, message).catch(() => null);
  if (delivery === null) {
    // Not visible here yet (KV is eventually consistent), or expired: a retry reads it again.
    return {
      ok: false,
      status: null,
      error: `the delivery's body (${message.bodyRef}) could not be read`,
      retryable: true,
    };
  }
  return sendSideDelivery(env, delivery, Date.now());
}

/** Records the attempt; returns the delay before the next one, or null when none follows. */
async function settle(
  env: Env,
  delivery: SideDelivery,
  attempt: number,
  result: SideDeliveryResult,
): Promise<number | null> {
  const givingUp = !result.ok && (!result.retryable || attempt >= MAX_ATTEMPTS);
  try {
    await recordSideDeliveryAttempt(env, delivery, { ...result, attempt, final: result.ok || givingUp });
  } catch (error) {
    // Recording failed (D1 unavailable): deliver again later; the receiver dedupes on the key.
    logEvent("side_delivery.record_failed", { id: delivery.id, attempt, error });
    return sideDeliveryRetryDelaySeconds(attempt);
  }
  logEvent(result.ok ? "side_delivery.delivered" : "side_delivery.failed", {
    id: delivery.id,
    purpose: delivery.purpose.kind,
    attempt,
    ...(result.ok ? {} : { error: result.error, giving_up: givingUp }),
  });
  return result.ok || givingUp ? null : sideDeliveryRetryDelaySeconds(attempt);
}
