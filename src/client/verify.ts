// Receiver-side check of `Edgecron-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`, the HMAC-SHA256 of
// `${t}.${rawBody}` keyed with the tenant's signing secret. WebCrypto only: Node 20, Workers and
// browsers alike.

export type VerifyFailureReason =
  | "no_secrets"
  | "missing_header"
  | "malformed_header"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch";

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailureReason };

export interface VerifyOptions {
  /** Largest accepted |now - t| in seconds: the replay window. Default 300. */
  toleranceSec?: number;
  /** The receiver's clock in unix seconds (tests); default now. */
  nowSec?: number;
}

export interface VerifyPartsInput extends VerifyOptions {
  /** The `Edgecron-Signature` header value. */
  header: string | null | undefined;
  /** The raw request body exactly as received: a string (UTF-8) or its bytes. */
  body: string | ArrayBuffer | Uint8Array;
  /** Every secret that may sign: current and next during a rotation (unset entries are skipped). */
  secrets: Secrets;
}

/** One secret or several; `undefined`/empty entries are ignored so `[env.SECRET, env.SECRET_NEXT]` just works. */
export type Secrets = string | readonly (string | null | undefined)[];

export const SIGNATURE_HEADER = "edgecron-signature";

const encoder = new TextEncoder();

/**
 * Verifies a delivery from edgecron without consuming the request body (it reads a clone).
 * @example
 * const check = await verifySignature(request, [env.EDGECRON_SECRET]);
 * if (!check.ok) return new Response(check.reason, { status: 401 });
 * const payload = await request.json(); // the body is still readable
 */
export async function verifySignature(
  request: Request,
  secrets: Secrets,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const header = request.headers.get(SIGNATURE_HEADER);
  // Bytes, not text(): a decode/re-encode round trip would alter a body that is not valid UTF-8.
  const body = header ? new Uint8Array(await request.clone().arrayBuffer()) : new Uint8Array();
  return verifySignatureParts({ ...options, header, body, secrets });
}

/**
 * Verifies a signature from its parts: accepts when ANY secret matches ANY `v1` (rotation) and
 * `t` is within the tolerance of now (replay window).
 * @example await verifySignatureParts({ header, body: rawText, secrets: ["whsec_a", "whsec_b"] })
 */
export async function verifySignatureParts(input: VerifyPartsInput): Promise<VerifyResult> {
  const given: readonly (string | null | undefined)[] =
    typeof input.secrets === "string" ? [input.secrets] : input.secrets;
  const secrets = given.filter((secret): secret is string => typeof secret === "string" && secret !== "");
  if (secrets.length === 0) return { ok: false, reason: "no_secrets" };
  if (!input.header) return { ok: false, reason: "missing_header" };
  const parsed = parseSignatureHeader(input.header);
  if (!parsed) return { ok: false, reason: "malformed_header" };
  const nowSec = input.nowSec ?? Math.floor(Date.now() / 1000);
  if (Math.abs(nowSec - parsed.timestampSec) > (input.toleranceSec ?? 300)) {
    return { ok: false, reason: "timestamp_out_of_tolerance" };
  }
  const message = signedMessage(parsed.timestampSec, input.body);
  let matched = false;
  for (const secret of secrets) {
    const expected = await hmacSha256(secret, message);
    // Compare against every candidate, no early exit: timing reveals nothing about which matched.
    for (const candidate of parsed.signatures) matched = constantTimeEqual(expected, candidate) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: "signature_mismatch" };
}

/** `t=1764403200,v1=ab..,v1=cd..` -> timestamp and the v1 signatures as bytes; null if unusable. */
export function parseSignatureHeader(
  header: string,
): { timestampSec: number; signatures: Uint8Array[] } | null {
  let timestampSec: number | null = null;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === "t") {
      if (!/^\d{1,12}$/.test(value) || timestampSec !== null) return null;
      timestampSec = Number(value);
    } else if (name === "v1") {
      const bytes = hexToBytes(value);
      if (bytes) signatures.push(bytes);
    }
    // Other schemes (v0, a future v2) are ignored so old receivers keep working.
  }
  return timestampSec === null || signatures.length === 0 ? null : { timestampSec, signatures };
}

function signedMessage(timestampSec: number, body: VerifyPartsInput["body"]): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestampSec}.`);
  const bodyBytes =
    typeof body === "string"
      ? encoder.encode(body)
      : body instanceof Uint8Array
        ? body
        : new Uint8Array(body);
  const message = new Uint8Array(prefix.length + bodyBytes.length);
  message.set(prefix, 0);
  message.set(bodyBytes, prefix.length);
  return message;
}

async function hmacSha256(secret: string, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

function hexToBytes(hex: string): Uint8Array | null {
  if (hex.length !== 64 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Equal-length byte comparison whose time does not depend on where the bytes differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
