// An independent verifier (node:crypto, not the product's WebCrypto code) for Edgecron-Signature.
import { createHmac, timingSafeEqual } from "node:crypto";

export function signatureVerifies(header: string | undefined, body: string, secrets: string[]): boolean {
  if (!header) return false;
  const timestamp = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  if (!timestamp) return false;
  const candidates = [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((match) =>
    Buffer.from(match[1] as string, "hex"),
  );
  return secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest();
    return candidates.some(
      (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
    );
  });
}
