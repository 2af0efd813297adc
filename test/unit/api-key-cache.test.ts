// The isolate's cache of resolved API keys: a key is trusted for API_KEY_CACHE_TTL_MS and then
// looked up again (a revoke elsewhere lands within that), a revoke here forgets it at once, and
// a flood of distinct keys cannot grow it without bound.
import { describe, expect, it } from "vitest";
import {
  API_KEY_CACHE_TTL_MS,
  cachedCallerOf,
  forgetApiKey,
  rememberCaller,
} from "../../src/api/http/api-key-cache";
import type { Caller } from "../../src/api/http/app-env";

const callerOf = (keyId: string): Caller => ({ role: "tenant", tenantId: `ten_${keyId}`, keyId });

describe("api key cache", () => {
  it("answers a remembered key until its TTL ends, then asks again", () => {
    const nowMs = 1_000_000;
    rememberCaller("ek_ttl", callerOf("key_ttl"), nowMs);
    expect(cachedCallerOf("ek_ttl", nowMs + API_KEY_CACHE_TTL_MS - 1)).toEqual(callerOf("key_ttl"));
    expect(cachedCallerOf("ek_ttl", nowMs + API_KEY_CACHE_TTL_MS)).toBeNull();
    expect(cachedCallerOf("ek_ttl", nowMs)).toBeNull();
  });

  it("forgets every token of a revoked key, and only those", () => {
    const nowMs = 2_000_000;
    rememberCaller("ek_a", callerOf("key_a"), nowMs);
    rememberCaller("ek_b", callerOf("key_b"), nowMs);
    forgetApiKey("key_a");
    expect(cachedCallerOf("ek_a", nowMs)).toBeNull();
    expect(cachedCallerOf("ek_b", nowMs)).toEqual(callerOf("key_b"));
  });

  it("stays bounded under many distinct keys: the oldest go first", () => {
    const nowMs = 3_000_000;
    rememberCaller("ek_first", callerOf("key_first"), nowMs);
    for (let i = 0; i < 1_000; i++) rememberCaller(`ek_many_${i}`, callerOf(`key_${i}`), nowMs);
    expect(cachedCallerOf("ek_first", nowMs)).toBeNull();
    expect(cachedCallerOf("ek_many_999", nowMs)).toEqual(callerOf("key_999"));
  });
});
