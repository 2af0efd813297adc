// The tenant callers this isolate resolved from API keys lately. Looking a key up (a SHA-256, a D1
// read, a constant-time compare) was an eighth of a DELETE's CPU, paid again on every request of
// a client that sends the same key each time. A revoke in this isolate forgets the key at once;
// another isolate stops accepting it within API_KEY_CACHE_TTL_MS (docs/API.md says so).
import type { Caller } from "./app-env";

/** How long a resolved key is trusted without asking D1 again. */
export const API_KEY_CACHE_TTL_MS = 5_000;
/** Bounded: a flood of distinct keys evicts the oldest, it does not grow the isolate. */
const MAX_CACHED_KEYS = 1_000;

interface CachedCaller {
  caller: Caller;
  expiresAtMs: number;
}

const cachedByToken = new Map<string, CachedCaller>();

/** The caller this token resolved to within the TTL, or null (then look it up). */
export function cachedCallerOf(token: string, nowMs: number): Caller | null {
  const entry = cachedByToken.get(token);
  if (entry === undefined) return null;
  if (entry.expiresAtMs <= nowMs) {
    cachedByToken.delete(token);
    return null;
  }
  return entry.caller;
}

/** Remembers a key that resolved to a live (not revoked) tenant caller. */
export function rememberCaller(token: string, caller: Caller, nowMs: number): void {
  if (cachedByToken.size >= MAX_CACHED_KEYS) {
    const oldest = cachedByToken.keys().next();
    if (!oldest.done) cachedByToken.delete(oldest.value);
  }
  cachedByToken.set(token, { caller, expiresAtMs: nowMs + API_KEY_CACHE_TTL_MS });
}

/** A revoked key stops working in this isolate with its revoke's answer, not a TTL later. */
export function forgetApiKey(keyId: string): void {
  for (const [token, entry] of cachedByToken) {
    if (entry.caller.keyId === keyId) cachedByToken.delete(token);
  }
}
