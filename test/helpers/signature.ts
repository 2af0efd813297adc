// Signatures in tests go through the receiver helper users get (src/client/verify.ts), never a
// copy of the signing rule: tests then check what a user's receiver concludes, and follow the
// signature format wherever verify.ts takes it. Works in workerd and in Node (WebCrypto only).
import {
  type Secrets,
  type VerifyOptions,
  type VerifyResult,
  verifySignature,
} from "../../src/client/verify";
import { buildRequest } from "../../src/delivery/target-call";
import type { HttpCallInput } from "../../src/delivery/target-input";

/** A delivery as a recording target saw it. */
export interface DeliveredCall {
  method: string;
  /** Absolute URL the call was sent to, query included. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The receiver's clock at receipt: the replay window is judged against it, not the test's end. */
  receivedAtMs?: number;
}

/** Connection-level headers a recorder sees that a Request may not carry. */
const TRANSPORT_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
]);
const BODYLESS_METHODS = new Set(["GET", "HEAD"]);

/** The recorded call as the Request a receiver (a Worker, a Node server) would hand to verifySignature. */
export function requestOf(call: DeliveredCall): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(call.headers)) {
    if (value === undefined || TRANSPORT_HEADERS.has(name.toLowerCase())) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const method = call.method.toUpperCase();
  return new Request(call.url, { method, headers, body: BODYLESS_METHODS.has(method) ? null : call.body });
}

/** What the client's verifySignature says about a recorded delivery under `secrets`. */
export function verifyDelivery(
  call: DeliveredCall,
  secrets: Secrets,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const nowSec = call.receivedAtMs === undefined ? undefined : Math.floor(call.receivedAtMs / 1000);
  return verifySignature(requestOf(call), secrets, { nowSec, ...options });
}

/** True when a receiver holding `secrets` accepts the delivery. */
export async function deliveryVerifies(call: DeliveredCall, secrets: Secrets): Promise<boolean> {
  return (await verifyDelivery(call, secrets)).ok;
}

/**
 * A request signed by edgecron's own request builder (the one deliveries use) at `nowSec`, for
 * tests of the verifier: no signing rule is restated here.
 */
export function signedRequest(input: {
  secrets: readonly string[];
  nowSec: number;
  body: string;
  url?: string;
}): Promise<Request> {
  const scheduledAtMs = input.nowSec * 1000;
  const call: HttpCallInput = {
    target: {
      type: "http",
      url: input.url ?? "https://receiver.example/hook",
      method: "POST",
      headers: {},
      body: input.body,
    },
    runId: "run_signed",
    jobId: "job_signed",
    scheduledAtMs,
    attempt: 1,
    idempotencyKey: `job_signed:${scheduledAtMs}`,
    secrets: input.secrets,
    timeoutMs: 30_000,
    allowPrivate: true,
    nowMs: scheduledAtMs,
  };
  return buildRequest(call);
}
