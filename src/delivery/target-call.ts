// Executes one run against its target: the only place edgecron calls user URLs. Binding targets
// (service, Workflow, Queue) are dispatched to binding-targets.ts; a service binding comes back
// through `exchange` for the same request an HTTP target gets.

import {
  canonicalSignatureString,
  SIGNATURE_SCHEME,
  type SignedRequestParts,
  sha256Hex,
} from "../client/verify";
import { hmacKeyCache, toHex } from "../core/common/encoding";
import { isHopByHopHeader, serializeTargetBody } from "../core/jobs/job-spec";
import { qstashHeaders } from "../core/qstash/delivery";
import { qstashSignature } from "../core/qstash/jwt";
import { classifyTargetError, classifyTargetResponse, type TargetOutcome } from "../core/runs/outcome";
import { resolvedTargetProblem } from "../core/targets/ssrf";
import { callBindingTarget } from "./binding-targets";
import type { CallTargetInput, HttpCallInput } from "./target-input";

export type { CallTargetInput } from "./target-input";

export const USER_AGENT = "edgecron/0.1";
/** How much of a failed response's body we keep in the run's error, for the user to read. */
const ERROR_BODY_SNIPPET_BYTES = 256;
const BODYLESS_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/**
 * Calls the target once and classifies the result. Never throws: every failure is a
 * TargetOutcome (refused address and unbuildable request: permanent; timeout, network error:
 * retryable; HTTP status: see classifyTargetResponse). Redirects are not followed.
 *
 * @example
 * const outcome = await callTarget({ target, runId, jobId, scheduledAtMs, attempt: 1,
 *   idempotencyKey: `${jobId}:${scheduledAtMs}`, secrets: [secret], timeoutMs: 30_000,
 *   allowPrivate: false, nowMs: Date.now() });
 */
export async function callTarget(input: CallTargetInput): Promise<TargetOutcome> {
  const { target } = input;
  // A binding is no address: no SSRF check; a service binding gets the same request as HTTP.
  if (target.type !== "http") return callBindingTarget({ ...input, target }, exchange);
  return callHttpTarget({ ...input, target });
}

async function callHttpTarget(input: HttpCallInput): Promise<TargetOutcome> {
  const problem = await resolvedTargetProblem(input.target.url, input);
  if (problem?.kind === "refused")
    return { kind: "permanent", status: null, error: problem.error, durationMs: 0 };
  if (problem?.kind === "unresolved") {
    return { kind: "retryable", status: null, error: problem.error, retryAfterMs: null, durationMs: 0 };
  }
  return exchange(input, input.fetchImpl ?? fetch);
}

/** Builds the request, sends it with `fetchImpl` and classifies the answer. Never throws. */
async function exchange(input: HttpCallInput, fetchImpl: typeof fetch): Promise<TargetOutcome> {
  const clockMs = input.clockMs ?? Date.now;
  let request: Request;
  try {
    request = await buildRequest(input);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      kind: "permanent",
      status: null,
      error: `request could not be built: ${message}`,
      durationMs: 0,
    };
  }

  const startedMs = clockMs();
  let response: Response;
  try {
    response = await fetchImpl(request);
  } catch (error) {
    return classifyTargetError(error, clockMs() - startedMs);
  }
  const durationMs = clockMs() - startedMs;
  const outcome = classifyTargetResponse({
    status: response.status,
    retryAfterHeader: response.headers.get("retry-after"),
    retryOnStatus: input.retryOnStatus ?? [],
    durationMs,
    nowMs: input.nowMs + durationMs,
    asyncHeader: response.headers.get("edgecron-async"),
    completion: input.completion ?? "response",
  });
  if (outcome.kind === "success" || outcome.kind === "accepted") {
    await discardBody(response);
    return outcome;
  }
  const snippet = await readSnippet(response, ERROR_BODY_SNIPPET_BYTES);
  return snippet === "" ? outcome : { ...outcome, error: `${outcome.error}: ${snippet}` };
}

/** The request the target receives (README, "What your endpoint receives"). */
export async function buildRequest(input: HttpCallInput): Promise<Request> {
  const { target } = input;
  const sendsBody = !BODYLESS_METHODS.has(target.method);
  const body = sendsBody ? (serializeTargetBody(target.body) ?? "") : "";
  // Names in lower case, as Headers keeps them; one Headers is built, by the Request, instead of
  // a native call per header (a visible share of a burst's CPU).
  // No prototype: a header named `__proto__` is a header like any other.
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(target.headers)) {
    // Refused at create since they were; a job stored before that must still not send them
    // (`Expect: 100-continue` made a 200 read as "target answered 100").
    if (isHopByHopHeader(name)) continue;
    const lower = name.toLowerCase();
    const earlier = headers[lower];
    headers[lower] = earlier === undefined ? value : `${earlier}, ${value}`;
  }
  if (sendsBody && body !== "" && typeof target.body !== "string" && headers["content-type"] === undefined) {
    headers["content-type"] = "application/json";
  }
  headers["user-agent"] ??= USER_AGENT;
  headers["idempotency-key"] = input.idempotencyKey;
  headers["edgecron-job-id"] = input.jobId;
  headers["edgecron-run-id"] = input.runId;
  headers["edgecron-scheduled-at"] = new Date(input.scheduledAtMs).toISOString();
  headers["edgecron-attempt"] = String(input.attempt);
  if (input.runToken !== undefined) headers["edgecron-run-token"] = input.runToken;
  if (input.traceparent !== undefined) headers.traceparent = input.traceparent;
  if (input.secrets.length > 0) {
    headers["edgecron-signature"] = await signatureHeader(
      input.secrets,
      Math.floor(input.nowMs / 1000),
      {
        method: target.method,
        url: target.url,
        idempotencyKey: input.idempotencyKey,
        runId: input.runId,
        attempt: input.attempt,
      },
      body,
    );
  }
  if (input.qstash !== undefined) await setQstashHeaders(headers, input, body);
  return new Request(target.url, {
    method: target.method,
    headers,
    body: sendsBody && body !== "" ? body : null,
    redirect: "manual",
    signal: AbortSignal.timeout(input.timeoutMs),
  });
}

/**
 * A QStash-format call (a /v2 job): what the official Receiver verifies, signed with the
 * tenant's current secret only (one JWT has one key; a Receiver holding current and next keeps
 * verifying when next becomes current), plus the `Upstash-*` headers. Ours stay beside them.
 */
async function setQstashHeaders(
  headers: Record<string, string>,
  input: HttpCallInput,
  body: string,
): Promise<void> {
  const delivery = input.qstash;
  if (delivery === undefined) return;
  for (const [name, value] of Object.entries(qstashHeaders(delivery, input)))
    headers[name.toLowerCase()] = value;
  const signingKey = input.secrets[0];
  if (signingKey === undefined) return;
  headers["upstash-signature"] = await qstashSignature(crypto.subtle, {
    // The same key as Edgecron-Signature's: HMAC SHA-256 of the secret's UTF-8 bytes, cached.
    signingKey: await hmacKey(signingKey),
    url: input.target.url,
    body,
    nowMs: input.nowMs,
    jti: `jwt_${crypto.randomUUID().replaceAll("-", "")}`,
  });
}

/**
 * Hex HMAC-SHA256 of the v2 canonical string (src/client/verify.ts `canonicalSignatureString`)
 * keyed with the UTF-8 bytes of `secret`.
 * @example await signPayload("whsec_x", 1764403200, parts, await sha256Hex('{"a":1}')) // 64 hex characters
 */
export async function signPayload(
  secret: string,
  timestampSec: number,
  request: SignedRequestParts,
  bodySha256Hex: string,
): Promise<string> {
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    encoder.encode(canonicalSignatureString(timestampSec, request, bodySha256Hex)),
  );
  return toHex(new Uint8Array(mac));
}

const encoder = new TextEncoder();
/** Imported HMAC keys per secret: importKey on every call cost more than the signature itself. */
const hmacKey = hmacKeyCache(1_000, ["sign"]);

/**
 * `t=<unix seconds>,v2=<hex>[,v2=<hex>...]`: one v2 per active secret, current first, so during
 * a rotation receivers holding either the old or the new secret can verify. Each v2 binds the
 * method, URL, idempotency key, run id, attempt, `t` and the body's SHA-256: receivers accept if
 * any v2 matches and reject a `t` too far from their clock (replay). No v1 is sent: a v1 beside
 * the v2 would keep cross-URL replay open for every receiver that still checks v1.
 *
 * @example await signatureHeader(["new", "old"], 1764403200,
 *   { method: "POST", url, idempotencyKey, runId, attempt: 1 }, "{}") // "t=1764403200,v2=…,v2=…"
 */
export async function signatureHeader(
  secrets: readonly string[],
  timestampSec: number,
  request: SignedRequestParts,
  body: string,
): Promise<string> {
  const unique = [...new Set(secrets)];
  const bodyHash = await bodySha256Hex(body);
  const signatures = await Promise.all(
    unique.map((secret) => signPayload(secret, timestampSec, request, bodyHash)),
  );
  return [`t=${timestampSec}`, ...signatures.map((signature) => `${SIGNATURE_SCHEME}=${signature}`)].join(
    ",",
  );
}

/**
 * Body hashes of the bodies seen lately. Jobs share bodies (an empty one, the same JSON for a
 * tenant's many jobs), and the hash was a visible share of a call's CPU in a burst; bodies past
 * BODY_HASH_CACHE_MAX_CHARS are hashed every time so the cache stays small.
 */
const BODY_HASH_CACHE_LIMIT = 1_000;
const BODY_HASH_CACHE_MAX_CHARS = 4_096;
const bodyHashes = new Map<string, string>();

async function bodySha256Hex(body: string): Promise<string> {
  if (body.length > BODY_HASH_CACHE_MAX_CHARS) return sha256Hex(body);
  const cached = bodyHashes.get(body);
  if (cached !== undefined) return cached;
  const hash = await sha256Hex(body);
  if (bodyHashes.size >= BODY_HASH_CACHE_LIMIT) bodyHashes.clear();
  bodyHashes.set(body, hash);
  return hash;
}

/**
 * Bodies up to this size are read to the end: cancel() closes the connection, and a connection
 * per call to the same target cost ~4x the throughput under Miniflare (bench: TIME_WAIT sockets,
 * one TCP connect per run). Larger or unknown-length bodies are still cancelled.
 */
const DRAIN_BODY_MAX_BYTES = 64 * 1024;

/** Releases the connection: drains a small body (so keep-alive reuses it), cancels a large one. */
async function discardBody(response: Response): Promise<void> {
  if (response.body === null) return;
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  try {
    if (Number.isFinite(length) && length <= DRAIN_BODY_MAX_BYTES) await response.arrayBuffer();
    else await response.body.cancel();
  } catch {
    // The body may already be closed or errored; nothing to release.
  }
}

/** The first `maxBytes` of a body as trimmed text, then cancels the rest. Never throws. */
async function readSnippet(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } catch {
    // A body that fails mid-read (timeout, reset) still leaves the status to report.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(total, maxBytes));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  return new TextDecoder().decode(bytes).replace(/\s+/g, " ").trim();
}
