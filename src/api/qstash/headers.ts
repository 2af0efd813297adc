// The one reader of QStash's `Upstash-*` message headers (publish, enqueue, batch items and
// schedules). Every header is checked on its own, so one 400 names every bad header; the values
// come back typed, with units, for the routes to turn into a job.
import { MAX_DURATION_MS } from "../../core/common/duration";
import { isHopByHopHeader } from "../../core/jobs/job-spec";
import { parseRetryDelayExpression } from "../../core/runs/retry-delay-expression";
import { CALLBACK_PREFIX, callbackHeadersOf, FAILURE_CALLBACK_PREFIX } from "./callback-headers";

export const QSTASH_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type QstashMethod = (typeof QSTASH_METHODS)[number];

/** Our one-shot jobs allow up to 100 attempts: 1 delivery plus 99 retries. */
export const MAX_QSTASH_RETRIES = 99;
/** QStash's default when `Upstash-Retries` is absent. */
export const DEFAULT_QSTASH_RETRIES = 3;
const MIN_TIMEOUT_MS = 1_000;
const MAX_TIMEOUT_MS = 15 * 60_000;
const FORWARD_PREFIX = "upstash-forward-";

export interface FlowControlHeader {
  key: string;
  parallelism: number | null;
  rate: number | null;
  periodSeconds: number | null;
}

export interface MessageHeaders {
  method: QstashMethod;
  /** When the first delivery is due (unix ms): Not-Before wins over Delay; null = now. */
  notBeforeMs: number | null;
  retries: number;
  retryDelayExpression: string | null;
  timeoutMs: number | null;
  deduplicationId: string | null;
  contentBasedDeduplication: boolean;
  labels: string[];
  /** What the target receives: `Upstash-Forward-*` with the prefix stripped, and Content-Type. */
  forwardHeaders: Record<string, string>;
  flowControl: FlowControlHeader | null;
  callback: string | null;
  failureCallback: string | null;
  /** What the callbacks are called with (./callback-headers.ts). */
  callbackHeaders: Record<string, string>;
  failureCallbackHeaders: Record<string, string>;
  /** Schedules only, raw: the schedules routes parse them. */
  cron: string | null;
  scheduleId: string | null;
  queueName: string | null;
}

/** A bad header: `header` is its name as QStash documents it. */
export interface HeaderError {
  header: string;
  message: string;
}

export type MessageHeadersResult =
  | { ok: true; headers: MessageHeaders }
  | { ok: false; errors: HeaderError[] };

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A QStash duration: `"10s"`, `"2h"`, `"1h30m"` or a bare number of seconds (the client sends a
 * number as `"<n>s"`, the REST docs show bare seconds). Null when it is none of these.
 *
 * @example parseQstashDurationMs("1h30m") === 5_400_000
 */
export function parseQstashDurationMs(value: string): number | null {
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1_000;
  if (!/^(\d{1,9}(ms|s|m|h|d))+$/.test(text)) return null;
  let totalMs = 0;
  for (const [, amount, unit] of text.matchAll(/(\d{1,9})(ms|s|m|h|d)/g)) {
    totalMs += Number(amount) * (UNIT_MS[unit ?? "s"] ?? 1_000);
  }
  return totalMs;
}

/** Reads every message header of a publish (or a batch item) against `nowMs`. */
export function parseMessageHeaders(headers: Headers, nowMs: number): MessageHeadersResult {
  const errors: HeaderError[] = [];
  const fail = (header: string, message: string) => {
    errors.push({ header, message });
    return null;
  };
  const read = (name: string) => headers.get(name)?.trim() || null;

  const method = readMethod(read("upstash-method"), fail);
  const notBeforeMs = readNotBefore(read("upstash-not-before"), read("upstash-delay"), nowMs, fail);
  const retries = readRetries(read("upstash-retries"), fail);
  const retryDelayExpression = readRetryDelay(read("upstash-retry-delay"), fail);
  const timeoutMs = readTimeout(read("upstash-timeout"), fail);
  const deduplicationId = readDeduplicationId(read("upstash-deduplication-id"), fail);
  const contentBased = readBoolean(
    "Upstash-Content-Based-Deduplication",
    read("upstash-content-based-deduplication"),
    fail,
  );
  const flowControl = readFlowControl(
    read("upstash-flow-control-key"),
    read("upstash-flow-control-value"),
    fail,
  );
  const callback = readUrl("Upstash-Callback", read("upstash-callback"), fail);
  const failureCallback = readUrl("Upstash-Failure-Callback", read("upstash-failure-callback"), fail);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    headers: {
      method: method ?? "POST",
      notBeforeMs,
      retries: retries ?? DEFAULT_QSTASH_RETRIES,
      retryDelayExpression,
      timeoutMs,
      deduplicationId,
      contentBasedDeduplication: contentBased ?? false,
      labels: readLabels(read("upstash-label")),
      forwardHeaders: forwardedHeaders(headers),
      flowControl,
      callback,
      failureCallback,
      callbackHeaders: callbackHeadersOf(headers, CALLBACK_PREFIX, isDroppedForwardHeader),
      failureCallbackHeaders: callbackHeadersOf(headers, FAILURE_CALLBACK_PREFIX, isDroppedForwardHeader),
      cron: read("upstash-cron"),
      scheduleId: read("upstash-schedule-id"),
      queueName: read("upstash-queue-name"),
    },
  };
}

type Fail = (header: string, message: string) => null;

function readMethod(value: string | null, fail: Fail): QstashMethod | null {
  if (value === null) return null;
  const upper = value.toUpperCase();
  const known = QSTASH_METHODS.find((method) => method === upper);
  return known ?? fail("Upstash-Method", `must be one of ${QSTASH_METHODS.join(", ")}`);
}

function readNotBefore(
  notBefore: string | null,
  delay: string | null,
  nowMs: number,
  fail: Fail,
): number | null {
  // Both are checked, so a bad Delay is named even when Not-Before would win.
  let delayMs: number | null = null;
  if (delay !== null) {
    delayMs = parseQstashDurationMs(delay);
    if (delayMs === null || delayMs > MAX_DURATION_MS) {
      delayMs = fail(
        "Upstash-Delay",
        'must be a duration such as "10s", "5m", "2h", "1d" (at most 366 days)',
      );
    }
  }
  if (notBefore !== null) {
    if (!/^\d{1,12}$/.test(notBefore)) return fail("Upstash-Not-Before", "must be a unix time in seconds");
    const atMs = Number(notBefore) * 1_000;
    if (atMs > nowMs + MAX_DURATION_MS) return fail("Upstash-Not-Before", "must be at most 366 days ahead");
    return atMs;
  }
  return delayMs === null || delayMs === 0 ? null : nowMs + delayMs;
}

function readRetries(value: string | null, fail: Fail): number | null {
  if (value === null) return null;
  if (!/^\d{1,3}$/.test(value) || Number(value) > MAX_QSTASH_RETRIES) {
    return fail("Upstash-Retries", `must be an integer from 0 to ${MAX_QSTASH_RETRIES}`);
  }
  return Number(value);
}

function readRetryDelay(value: string | null, fail: Fail): string | null {
  if (value === null) return null;
  const parsed = parseRetryDelayExpression(value);
  return parsed.ok ? value : fail("Upstash-Retry-Delay", parsed.error);
}

function readTimeout(value: string | null, fail: Fail): number | null {
  if (value === null) return null;
  const timeoutMs = parseQstashDurationMs(value);
  if (timeoutMs === null || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
    return fail("Upstash-Timeout", 'must be a duration from "1s" to "15m"');
  }
  return timeoutMs;
}

function readDeduplicationId(value: string | null, fail: Fail): string | null {
  if (value === null) return null;
  return value.length <= 255 ? value : fail("Upstash-Deduplication-Id", "must be at most 255 characters");
}

function readBoolean(header: string, value: string | null, fail: Fail): boolean | null {
  if (value === null) return null;
  const lower = value.toLowerCase();
  if (lower === "true" || lower === "false") return lower === "true";
  return fail(header, 'must be "true" or "false"');
}

function readUrl(header: string, value: string | null, fail: Fail): string | null {
  if (value === null) return null;
  const valid = URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);
  return valid && value.length <= 2048 ? value : fail(header, "must be an absolute http(s) URL");
}

function readLabels(value: string | null): string[] {
  if (value === null) return [];
  return [...new Set(value.split(",").map((label) => label.trim()))].filter((label) => label !== "");
}

const FLOW_CONTROL_PART = /^(parallelism|rate|period)\s*=\s*(\S+)$/;

function readFlowControl(key: string | null, value: string | null, fail: Fail): FlowControlHeader | null {
  if (key === null) {
    return value === null
      ? null
      : fail("Upstash-Flow-Control-Key", "is required with Upstash-Flow-Control-Value");
  }
  if (key.length > 200) return fail("Upstash-Flow-Control-Key", "must be at most 200 characters");
  const limits: FlowControlHeader = { key, parallelism: null, rate: null, periodSeconds: null };
  const message = 'must be "parallelism=N, rate=N, period=Ns" (each part optional, at least one)';
  if (value === null) return fail("Upstash-Flow-Control-Value", message);
  for (const part of value.split(",").map((text) => text.trim())) {
    const match = FLOW_CONTROL_PART.exec(part);
    const name = match?.[1];
    const raw = match?.[2] ?? "";
    if (name === "period") {
      const periodMs = parseQstashDurationMs(raw);
      if (periodMs === null || periodMs < 1_000) return fail("Upstash-Flow-Control-Value", message);
      limits.periodSeconds = Math.floor(periodMs / 1_000);
    } else if ((name === "parallelism" || name === "rate") && /^[1-9]\d{0,5}$/.test(raw)) {
      limits[name] = Number(raw);
    } else {
      return fail("Upstash-Flow-Control-Value", message);
    }
  }
  if (limits.parallelism === null && limits.rate === null) return fail("Upstash-Flow-Control-Value", message);
  return limits;
}

/** The headers every delivery sets itself: a forwarded one is replaced by the delivery's own. */
const DELIVERY_HEADERS = new Set([
  "idempotency-key",
  "user-agent",
  "upstash-signature",
  "upstash-message-id",
  "upstash-retried",
  "upstash-schedule-id",
  "upstash-caller-ip",
]);

/**
 * Whether a forwarded header is dropped rather than the message refused: a framework that
 * forwards its own request's headers (the Workflow SDK forwards them all) sends the hop-by-hop
 * ones of that request, and, when edgecron called it, edgecron's delivery headers; neither is
 * the user's to set.
 */
function isDroppedForwardHeader(name: string): boolean {
  return isHopByHopHeader(name) || DELIVERY_HEADERS.has(name) || name.startsWith("edgecron-");
}

/**
 * Only `Upstash-Forward-*` (prefix stripped) and Content-Type reach the target: never the token,
 * the client's telemetry or any other header of the publish request.
 */
function forwardedHeaders(headers: Headers): Record<string, string> {
  const forwarded: Record<string, string> = {};
  headers.forEach((value, name) => {
    const forwardedName = name.slice(FORWARD_PREFIX.length);
    if (name.startsWith(FORWARD_PREFIX) && forwardedName !== "" && !isDroppedForwardHeader(forwardedName)) {
      forwarded[forwardedName] = value;
    }
  });
  const contentType = headers.get("content-type");
  if (contentType !== null && forwarded["content-type"] === undefined)
    forwarded["content-type"] = contentType;
  return forwarded;
}
