// Pure retry decisions for the client: what is retryable, how long to wait. Time and randomness
// are parameters so tests can pin them.

export interface RetryPolicy {
  /** Retries after the first attempt (0 disables retrying). */
  retries: number;
  /** Backoff base: attempt n waits up to baseDelayMs * 2^n, with full jitter. */
  baseDelayMs: number;
  /** Cap of one computed backoff. */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is surfaced instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** 429 and 5xx may succeed later; any other 4xx is the caller's mistake and never retried. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Full-jitter exponential backoff: uniform in [0, min(max, base * 2^retryIndex)].
 * @example backoffDelayMs(0, DEFAULT_RETRY_POLICY, () => 0.5) // 125
 */
export function backoffDelayMs(retryIndex: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * Parses Retry-After (delta seconds or an HTTP date) into milliseconds from `nowMs`;
 * null when absent or unreadable.
 * @example parseRetryAfterMs("2", 0) // 2000
 */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  const dateMs = Date.parse(trimmed);
  return Number.isNaN(dateMs) ? null : Math.max(0, dateMs - nowMs);
}

/**
 * How long to wait before retry number `retryIndex` (0-based) after a retryable failure, or null
 * to give up: retries exhausted, or the server asks for a longer pause than we are willing to hold.
 */
export function nextRetryDelayMs(
  retryIndex: number,
  retryAfterMs: number | null,
  policy: RetryPolicy,
  random: () => number,
): number | null {
  if (retryIndex >= policy.retries) return null;
  if (retryAfterMs !== null) return retryAfterMs <= policy.maxRetryAfterMs ? retryAfterMs : null;
  return backoffDelayMs(retryIndex, policy, random);
}
