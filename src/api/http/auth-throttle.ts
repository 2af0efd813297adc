// Failed authentications are throttled per client address and per API key prefix (the 11
// characters `GET /v1/api-keys` and the console show, so the one part of a key that is ever on
// screen). Counting is the platform's rate limiter (`AUTH_FAILURES` in wrangler.toml): on
// Cloudflare it counts across isolates per location, locally in memory. An address over its
// count is also remembered in this isolate, so its next guesses at the admin token are refused
// before they are compared: that is what makes guessing slow.
//
// The right key is never locked out: an `ek_` key is always checked first (it is 256 random bits,
// so telling a guesser it was wrong or right costs nothing), and only its failures are refused.
// Only the admin token, which an operator may have chosen weak, is refused unchecked from a
// throttled address, for at most the limiter's period.
import { EdgecronError } from "./problem";

/** The limiter's period (wrangler.toml `simple.period`): the longest any refusal lasts. */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;
/** Addresses remembered at most per isolate: a flood of addresses must not grow memory for ever. */
const MAX_BLOCKED_ADDRESSES = 10_000;

const blockedUntilMs = new Map<string, number>();

/** The caller's address as Cloudflare (or the local dev server) reports it; null in-process. */
export function clientAddressOf(request: Request): string | null {
  return request.headers.get("cf-connecting-ip");
}

/** Whether credentials other than API keys from `address` are refused unchecked right now. */
export function isAddressThrottled(address: string | null, nowMs: number): boolean {
  if (address === null) return false;
  const untilMs = blockedUntilMs.get(address);
  if (untilMs === undefined) return false;
  if (untilMs > nowMs) return true;
  blockedUntilMs.delete(address);
  return false;
}

export interface FailedAttempt {
  address: string | null;
  /** The first 11 characters of a token shaped like an API key; null for anything else. */
  keyPrefix: string | null;
}

/**
 * Counts one failed authentication in each of its buckets. True when a bucket is over its limit:
 * the attempt is then answered 429, not 401, and an address over its limit is remembered.
 */
export async function recordAuthFailure(
  limiter: RateLimit,
  attempt: FailedAttempt,
  nowMs: number,
): Promise<boolean> {
  const [addressOk, prefixOk] = await Promise.all([
    attempt.address === null ? true : limitOf(limiter, `address:${attempt.address}`),
    attempt.keyPrefix === null ? true : limitOf(limiter, `key:${attempt.keyPrefix}`),
  ]);
  if (!addressOk && attempt.address !== null) rememberBlocked(attempt.address, nowMs);
  return !addressOk || !prefixOk;
}

async function limitOf(limiter: RateLimit, key: string): Promise<boolean> {
  return (await limiter.limit({ key })).success;
}

function rememberBlocked(address: string, nowMs: number): void {
  blockedUntilMs.delete(address);
  blockedUntilMs.set(address, nowMs + AUTH_FAILURE_PERIOD_SECONDS * 1_000);
  for (const oldest of blockedUntilMs.keys()) {
    if (blockedUntilMs.size <= MAX_BLOCKED_ADDRESSES) break;
    blockedUntilMs.delete(oldest);
  }
}

export function authThrottled(): EdgecronError {
  return new EdgecronError(
    "auth_throttled",
    "Too many failed authentications from this address or for this key prefix: retry after `Retry-After` seconds",
    { retryAfterSeconds: AUTH_FAILURE_PERIOD_SECONDS },
  );
}
