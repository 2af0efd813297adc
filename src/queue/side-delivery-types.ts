// What a side delivery is (see src/delivery/side-deliveries.ts): where it goes, how it is signed, and why it
// is sent. Types only, so the sender, the purposes and the queue's consumer share them.
import type { AlertDeliveryTarget } from "../core/alerts/alerts";

/**
 * How a delivery is signed:
 * - `edgecron`: `Edgecron-Signature` v2 with the tenant's current signing secrets (looked up at
 *   send time, so a rotation applies to retries), binding method, URL, idempotency key, run id
 *   and attempt, exactly as on a job's call;
 * - `qstash`: `Upstash-Signature` (QStash's JWT, src/core/qstash/jwt.ts) with the tenant's
 *   current secret, as on a /v2 job's call, so the official Receiver verifies it;
 * - `none`: sent as given (the caller's headers carry any authentication).
 */
export type SideDeliverySigning =
  | { style: "edgecron"; tenantId: string; runId: string | null; attempt: number | null }
  | { style: "qstash"; tenantId: string }
  | { style: "none" };

/** Why a delivery is sent: decides what is recorded when an attempt ends. */
export type SideDeliveryPurpose =
  | { kind: "alert"; alertId: string; target: AlertDeliveryTarget }
  /** A /v2 job's callback or failure callback: nothing is recorded but the log. */
  | { kind: "qstash_callback"; runId: string; failure: boolean };

export interface SideDelivery {
  /** Stable across retries (logs, records). */
  id: string;
  /** Sent as Idempotency-Key and bound by an edgecron signature: receivers dedupe retries on it. */
  idempotencyKey: string;
  purpose: SideDeliveryPurpose;
  url: string;
  method: "POST" | "PUT" | "PATCH" | "GET" | "DELETE";
  headers: Record<string, string>;
  /** The exact bytes sent (and signed); null for no body. */
  body: string | null;
  signing: SideDeliverySigning;
  /** Per attempt; the queue's batch waits at most this long for a hanging receiver. */
  timeoutMs: number;
}

export interface SideDeliveryMessage {
  kind: "side_delivery";
  delivery: SideDelivery;
  /** Attempts made before this message was sent (a handed-off attempt's retry is a new message). */
  attemptsBefore?: number;
  /** The KV key of the delivery's body when it was too large for the message (`delivery.body` is null). */
  bodyRef?: string;
}

/** How one attempt ended. A refused address is not retryable; every other failure is. */
export type SideDeliveryResult =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string; retryable: boolean };

/** One ended attempt, as recorded: `final` when no retry follows (delivered, or given up). */
export type SideDeliveryAttempt = SideDeliveryResult & { attempt: number; final: boolean };
