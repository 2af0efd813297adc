// An independent v2 signer for tests, written from the documented format (README "Verifying
// signatures"), not with the product's code: WebCrypto, so it runs in workerd and Node alike.

export interface SignedParts {
  method: string;
  url: string;
  idempotencyKey: string;
  runId: string;
  attempt: string;
}

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** HMAC-SHA256(secret, "v2\n<t>\n<METHOD>\n<url>\n<idempotency key>\n<run id>\n<attempt>\n<sha256 hex of body>") as hex. */
export async function v2Signature(
  secret: string,
  t: string | number,
  parts: SignedParts,
  body: string,
): Promise<string> {
  const bodyHash = hex(await crypto.subtle.digest("SHA-256", encoder.encode(body)));
  const message = [
    "v2",
    String(t),
    parts.method,
    parts.url,
    parts.idempotencyKey,
    parts.runId,
    parts.attempt,
    bodyHash,
  ].join("\n");
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/** `t` and the list of v2 (and, to prove none is sent, v1) values of an Edgecron-Signature header. */
export function parseSignature(header: string | undefined): { t: string; v2: string[]; v1: string[] } {
  const parts = (header ?? "").split(",").map((part) => part.split("=") as [string, string | undefined]);
  const values = (scheme: string) =>
    parts.filter(([name]) => name === scheme).map(([, value]) => value ?? "");
  return { t: values("t")[0] ?? "", v2: values("v2"), v1: values("v1") };
}

/** The signed parts of a received call, read from its headers as a receiver would. */
export function partsOf(call: {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
}): SignedParts {
  return {
    method: call.method,
    url: call.url,
    idempotencyKey: call.headers["idempotency-key"] ?? "",
    runId: call.headers["edgecron-run-id"] ?? "",
    attempt: call.headers["edgecron-attempt"] ?? "",
  };
}

/** Whether `secret` signed the call: one v2 in the header equals the independent signature. */
export async function v2Verifies(
  call: { method: string; url: string; headers: Record<string, string | undefined>; body: string },
  secret: string,
): Promise<boolean> {
  const { t, v2 } = parseSignature(call.headers["edgecron-signature"]);
  return v2.includes(await v2Signature(secret, t, partsOf(call), call.body));
}
