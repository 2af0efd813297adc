// Receiver-side check of `Edgecron-Signature: t=<unix>,v2=<hex>[,v2=<hex>]`. Each v2 is the
// HMAC-SHA256, keyed with the tenant's signing secret, of a canonical string that binds the whole
// request (method, URL, idempotency key, run id, attempt, timestamp, body hash), so a captured
// call cannot be replayed to another URL or under another key. WebCrypto only: Node 20, Workers
// and browsers alike. The sender (src/delivery/target-call.ts) builds the same string from here.

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

export interface VerifyRequestOptions extends VerifyOptions {
  /**
   * The URL edgecron called, when `request.url` is not it (a proxy that rewrote the host or the
   * scheme): the signature covers the URL of the job's target exactly.
   */
  url?: string;
}

/** What a v2 signature binds besides the timestamp and the body. */
export interface SignedRequestParts {
  /** The HTTP method, e.g. "POST" (compared upper-cased). */
  method: string;
  /** The full URL edgecron called: scheme, host, port, path and query (any #fragment is ignored). */
  url: string;
  /** The `Idempotency-Key` header; null/undefined/"" when the call carried none. */
  idempotencyKey: string | null | undefined;
  /** The `Edgecron-Run-Id` header; null/undefined/"" when the call carried none (alert webhooks without a run). */
  runId: string | null | undefined;
  /** The `Edgecron-Attempt` header (1, 2, ...); null/undefined/"" when the call carried none. */
  attempt: string | number | null | undefined;
}

export interface VerifyPartsInput extends VerifyOptions, SignedRequestParts {
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
/** The only scheme signed and accepted: v1 (body only) was replayable across URLs and keys. */
export const SIGNATURE_SCHEME = "v2";

const encoder = new TextEncoder();

/**
 * Verifies a delivery from edgecron without consuming the request body (it reads a clone). The
 * method and URL come from the Request, the idempotency key, run id and attempt from its headers.
 * @example
 * const check = await verifySignature(request, [env.EDGECRON_SECRET, env.EDGECRON_SECRET_NEXT]);
 * if (!check.ok) return new Response(check.reason, { status: 401 });
 * const payload = await request.json(); // the body is still readable
 */
export async function verifySignature(
  request: Request,
  secrets: Secrets,
  options: VerifyRequestOptions = {},
): Promise<VerifyResult> {
  const header = request.headers.get(SIGNATURE_HEADER);
  // Bytes, not text(): a decode/re-encode round trip would alter a body that is not valid UTF-8.
  const body = header ? new Uint8Array(await request.clone().arrayBuffer()) : new Uint8Array();
  const { url, ...rest } = options;
  return verifySignatureParts({
    ...rest,
    header,
    body,
    secrets,
    method: request.method,
    url: url ?? request.url,
    idempotencyKey: request.headers.get("idempotency-key"),
    runId: request.headers.get("edgecron-run-id"),
    attempt: request.headers.get("edgecron-attempt"),
  });
}

/**
 * Verifies a signature from its parts: accepts when ANY secret matches ANY `v2` (rotation), the
 * signed method, URL, idempotency key, run id, attempt and body are the ones given, and `t` is
 * within the tolerance of now (replay window).
 * @example await verifySignatureParts({ header, body: rawText, secrets: ["whsec_a", "whsec_b"],
 *   method: "POST", url: "https://example.com/hook", idempotencyKey: req.get("idempotency-key"),
 *   runId: req.get("edgecron-run-id"), attempt: req.get("edgecron-attempt") })
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
  const message = bytesOf(canonicalSignatureString(parsed.timestampSec, input, await sha256Hex(input.body)));
  let matched = false;
  for (const secret of secrets) {
    const expected = await hmacSha256(secret, message);
    // Compare against every candidate, no early exit: timing reveals nothing about which matched.
    for (const candidate of parsed.signatures) matched = constantTimeEqual(expected, candidate) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: "signature_mismatch" };
}

/**
 * The string a v2 signature is the HMAC of: eight lines joined by "\n", no trailing newline.
 * None of the parts can contain a newline (header values and serialized URLs cannot), so the
 * join is unambiguous.
 * @example canonicalSignatureString(1764403200, { method: "POST", url: "https://a.example/h",
 *   idempotencyKey: "job_1:2026-12-01T00:00:00.000Z", runId: "run_1", attempt: 1 }, sha256hex)
 * // "v2\n1764403200\nPOST\nhttps://a.example/h\njob_1:2026-12-01T00:00:00.000Z\nrun_1\n1\n<sha256hex>"
 */
export function canonicalSignatureString(
  timestampSec: number,
  parts: SignedRequestParts,
  bodySha256Hex: string,
): string {
  return [
    SIGNATURE_SCHEME,
    String(timestampSec),
    parts.method.toUpperCase(),
    canonicalUrl(parts.url),
    parts.idempotencyKey ?? "",
    parts.runId ?? "",
    parts.attempt === null || parts.attempt === undefined ? "" : String(parts.attempt),
    bodySha256Hex,
  ].join("\n");
}

/** The WHATWG serialization without a fragment (fetch never sends one); unparsable URLs as given. */
function canonicalUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  parsed.hash = "";
  return parsed.href;
}

/** Lower-case hex SHA-256 of the raw body bytes (a string is taken as UTF-8). */
export async function sha256Hex(body: string | ArrayBuffer | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytesOf(body));
  return hexOf(new Uint8Array(digest));
}

const HEX_OF_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Lower-case hex of the bytes, by table (the client imports nothing of the server's). */
function hexOf(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX_OF_BYTE[byte];
  return hex;
}

/** `t=1764403200,v2=ab..,v2=cd..` -> timestamp and the v2 signatures as bytes; null if unusable. */
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
    } else if (name === SIGNATURE_SCHEME) {
      const bytes = hexToBytes(value);
      if (bytes) signatures.push(bytes);
    }
    // Other schemes (v1, a future v3) are ignored: v1 never counts, whatever it says.
  }
  return timestampSec === null || signatures.length === 0 ? null : { timestampSec, signatures };
}

/** A copy backed by a plain ArrayBuffer, as WebCrypto's types want. */
function bytesOf(body: string | ArrayBuffer | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === "string") return new Uint8Array(encoder.encode(body));
  if (body instanceof Uint8Array) return new Uint8Array(body);
  return new Uint8Array(body);
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
