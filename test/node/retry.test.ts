import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  nextRetryDelayMs,
  parseRetryAfterMs,
} from "../../src/client/retry";

describe("client retry policy", () => {
  it("retries 429 and 5xx only", () => {
    expect([408, 400, 404, 409, 422, 429, 500, 502, 503].filter(isRetryableStatus)).toEqual([
      429, 500, 502, 503,
    ]);
  });

  it("grows the backoff ceiling exponentially up to the cap, with full jitter", () => {
    const ceiling = (i: number) => backoffDelayMs(i, DEFAULT_RETRY_POLICY, () => 0.999999);
    expect([0, 1, 2, 3, 4, 5, 10].map(ceiling)).toEqual([249, 499, 999, 1999, 3999, 7999, 7999]);
    expect(backoffDelayMs(3, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const nowMs = Date.parse("2026-12-01T00:00:00Z");
    expect(parseRetryAfterMs("3", nowMs)).toBe(3000);
    expect(parseRetryAfterMs("Tue, 01 Dec 2026 00:00:05 GMT", nowMs)).toBe(5000);
    expect(parseRetryAfterMs("Mon, 30 Nov 2026 00:00:00 GMT", nowMs)).toBe(0);
    expect(parseRetryAfterMs("soon", nowMs)).toBeNull();
    expect(parseRetryAfterMs(null, nowMs)).toBeNull();
  });

  it("stops after the last retry and when Retry-After exceeds what it will wait", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, retries: 2 };
    expect(nextRetryDelayMs(1, 1500, policy, Math.random)).toBe(1500);
    expect(nextRetryDelayMs(2, null, policy, Math.random)).toBeNull();
    expect(nextRetryDelayMs(0, 61_000, policy, Math.random)).toBeNull();
  });
});
