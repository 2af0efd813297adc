// An independent verifier (node:crypto, not the product's WebCrypto code) for Edgecron-Signature
// v2, from the format documented in the README.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export interface SignedCall {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

function headerOf(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}

/** Whether one v2 in the call's header is HMAC-SHA256(secret, canonical string) for `url`. */
export function signatureVerifies(call: SignedCall, url: string, secrets: string[]): boolean {
  const header = headerOf(call.headers, "edgecron-signature");
  const timestamp = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  if (!timestamp) return false;
  const candidates = [...header.matchAll(/v2=([0-9a-f]{64})/g)].map((match) =>
    Buffer.from(match[1] as string, "hex"),
  );
  const message = [
    "v2",
    timestamp,
    call.method,
    url,
    headerOf(call.headers, "idempotency-key"),
    headerOf(call.headers, "edgecron-run-id"),
    headerOf(call.headers, "edgecron-attempt"),
    createHash("sha256").update(call.body).digest("hex"),
  ].join("\n");
  return secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(message).digest();
    return candidates.some(
      (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
    );
  });
}
