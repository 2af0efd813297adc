import { TargetRefusedError } from "../targets/ssrf";
import { answerStartsAsyncWork, type CompletionMode } from "./long-running";

/** What happened when we called a target, classified once (see classifyTargetResponse). */
export type TargetOutcome =
  | {
      kind: "success";
      /** Null for a binding call with no HTTP answer (a Workflow instance, a queue message). */
      status: number | null;
      durationMs: number;
      /** What happened, for the run's history when there is no status to tell it. */
      detail?: string;
    }
  /** A long-running target took the work on: the run stays RUNNING until it reports back. */
  | { kind: "accepted"; status: number; durationMs: number }
  | {
      kind: "retryable";
      status: number | null;
      error: string;
      retryAfterMs: number | null;
      durationMs: number;
    }
  | { kind: "permanent"; status: number | null; error: string; durationMs: number };

/** An attempt that failed: what the retry policy decides on. */
export type FailedOutcome = Extract<TargetOutcome, { kind: "retryable" | "permanent" }>;

/**
 * Classifies a target's HTTP answer. The one place that decides a run's fate:
 *
 * - 2xx: success; or accepted (the target reports back later) for `202` with
 *   `Edgecron-Async: true`, or any 2xx when the job's completion is `callback`.
 * - 408, 429, 5xx: retryable; `Retry-After` (seconds or an HTTP date) becomes `retryAfterMs`.
 * - a 4xx listed in the job's `retry_on_status`: retryable.
 * - other 4xx: permanent (retrying a 404 or 401 will not help).
 * - 3xx: permanent. Redirects are not followed (a redirect could point into a private network
 *   past the address check), so the job must use the final URL.
 * - anything else (1xx, >= 600): permanent.
 *
 * @example
 * classifyTargetResponse({ status: 503, retryAfterHeader: "120", retryOnStatus: [], durationMs: 12, nowMs: 0 })
 * // -> { kind: "retryable", status: 503, error: "target answered 503", retryAfterMs: 120_000, durationMs: 12 }
 */
export function classifyTargetResponse(input: {
  status: number;
  retryAfterHeader: string | null;
  retryOnStatus: readonly number[];
  durationMs: number;
  nowMs: number;
  /** The `Edgecron-Async` response header, and the job's completion mode (default `response`). */
  asyncHeader?: string | null;
  completion?: CompletionMode;
}): TargetOutcome {
  const { status, durationMs } = input;
  if (answerStartsAsyncWork(status, input.asyncHeader ?? null, input.completion ?? "response")) {
    return { kind: "accepted", status, durationMs };
  }
  if (status >= 200 && status <= 299) return { kind: "success", status, durationMs };
  if (status >= 300 && status <= 399) {
    return {
      kind: "permanent",
      status,
      error: `target answered ${status} (a redirect); redirects are not followed, use the final URL`,
      durationMs,
    };
  }
  const retryable =
    status === 408 ||
    status === 429 ||
    (status >= 500 && status <= 599) ||
    (status >= 400 && status <= 499 && input.retryOnStatus.includes(status));
  if (retryable) {
    return {
      kind: "retryable",
      status,
      error: `target answered ${status}`,
      retryAfterMs: parseRetryAfterMs(input.retryAfterHeader, input.nowMs),
      durationMs,
    };
  }
  return { kind: "permanent", status, error: `target answered ${status}`, durationMs };
}

/**
 * Classifies a call that produced no HTTP answer. Timeouts and network errors are retryable
 * (the target may be back soon; delivery is at-least-once with an idempotency key); a refused
 * address (TargetRefusedError) is permanent. Unknown errors are retryable: retrying is the safe
 * side, and max_attempts still bounds it.
 *
 * @example classifyTargetError(new DOMException("timed out", "TimeoutError"), 30_000)
 * // -> { kind: "retryable", status: null, error: "target did not answer within 30000 ms (timeout)", ... }
 */
export function classifyTargetError(error: unknown, durationMs: number): FailedOutcome {
  if (error instanceof TargetRefusedError) {
    return { kind: "permanent", status: null, error: error.message, durationMs };
  }
  const name = error instanceof Error || isDomException(error) ? error.name : "";
  const message = error instanceof Error || isDomException(error) ? error.message : String(error);
  if (name === "TimeoutError" || name === "AbortError") {
    return {
      kind: "retryable",
      status: null,
      error: `target did not answer within ${Math.round(durationMs)} ms (timeout)`,
      retryAfterMs: null,
      durationMs,
    };
  }
  return {
    kind: "retryable",
    status: null,
    error: `network error calling target: ${message || name || "unknown error"}`,
    retryAfterMs: null,
    durationMs,
  };
}

/**
 * Parses a `Retry-After` value (RFC 9110 10.2.3): delay-seconds or an HTTP date, relative to
 * `nowMs`. Returns null when absent or unparseable; a date in the past gives 0.
 *
 * @example parseRetryAfterMs("Wed, 21 Oct 2026 07:28:00 GMT", Date.UTC(2026, 9, 21, 7, 27)) === 60_000
 */
export function parseRetryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // HTTP dates (IMF-fixdate, RFC 850, asctime) start with a weekday; refuse the many other
  // strings Date.parse accepts. All three are GMT; asctime does not say so, so add it.
  if (!/^(mon|tue|wed|thu|fri|sat|sun)[a-z]*,? /i.test(value)) return null;
  const atMs = Date.parse(/GMT$/i.test(value) ? value : `${value} GMT`);
  if (Number.isNaN(atMs)) return null;
  return Math.max(0, atMs - nowMs);
}

// DOMException is not an Error subclass in every runtime.
function isDomException(value: unknown): value is DOMException {
  return typeof DOMException !== "undefined" && value instanceof DOMException;
}
