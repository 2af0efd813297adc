// Failed authentications are throttled. Each failure counts in the bucket of the credential it
// guessed at: an API key's prefix (the 11 characters `GET /v1/api-keys` and the console show, so
// the one part of a key that is ever on screen), and, for anything else (the admin token), the
// client's address where something the client cannot forge says it (./client-address.ts: on
// Cloudflare, CF-Connecting-IP), else one budget shared by every caller. Counting is the platform's
// rate limiter (`AUTH_FAILURES` in wrangler.toml): on Cloudflare it counts across isolates per
// location, locally in memory. A trusted address over its count is also remembered in this
// isolate, so its next guesses at the admin token are refused before they are compared: that is
// what makes guessing slow, and only that address is refused.
//
// A right credential is never locked out by anyone else's guesses. An `ek_` key is always checked
// first (it is 256 random bits, so telling a guesser it was wrong or right costs nothing), and
// only its failures are refused. The admin token, which an operator may have chosen weak, is
// refused unchecked only from a trusted address over its count, for at most the limiter's period;
// without a trusted address a forged header cannot pick whom that hits, so there it is always
// compared: over the shared budget, wrong guesses answer 429 and the right token still gets in.
import { EdgecronError } from "./problem";

/** The limiter's period (wrangler.toml `simple.period`): the longest any refusal lasts. */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;
/** Addresses remembered at most per isolate: a flood of addresses must not grow memory for ever. */
const MAX_BLOCKED_ADDRESSES = 10_000;

const blockedUntilMs = new Map<string, number>();

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
  /** The client's trusted address (./client-address.ts); null when none can be trusted. */
  address: string | null;
  /** The first 11 characters of a token shaped like an API key; null for anything else. */
  keyPrefix: string | null;
}

/**
 * The limiter buckets one failure counts in: its key prefix for an API-key-shaped token, and its
 * trusted address, or without one (any token but a key) the budget every caller shares.
 * @example failureBuckets({ address: null, keyPrefix: null }) // ["guesses"]
 */
export function failureBuckets(attempt: FailedAttempt): string[] {
  const buckets: string[] = [];
  if (attempt.keyPrefix !== null) buckets.push(`key:${attempt.keyPrefix}`);
  if (attempt.address !== null) buckets.push(`address:${attempt.address}`);
  else if (attempt.keyPrefix === null) buckets.push("guesses");
  return buckets;
}

/**
 * Counts one failed authentication in each of its buckets. True when a bucket is over its limit:
 * the attempt is then answered 429, not 401, and a trusted address over its limit is remembered.
 */
export async function recordAuthFailure(
  limiter: RateLimit,
  attempt: FailedAttempt,
  nowMs: number,
): Promise<boolean> {
  const buckets = failureBuckets(attempt);
  const within = await Promise.all(buckets.map((key) => limitOf(limiter, key)));
  const addressIndex = attempt.address === null ? -1 : buckets.indexOf(`address:${attempt.address}`);
  if (attempt.address !== null && within[addressIndex] === false) rememberBlocked(attempt.address, nowMs);
  return within.includes(false);
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
    "Too many failed authentications from this address, for this key prefix or, where no address can be trusted, from every caller: retry after `Retry-After` seconds",
    { retryAfterSeconds: AUTH_FAILURE_PERIOD_SECONDS },
  );
}
