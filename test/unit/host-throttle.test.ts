import { describe, expect, it } from "vitest";
import {
  HOST_THROTTLE_SETTINGS,
  type HostThrottle,
  hostSignalOf,
  originOfTarget,
  targetOrigin,
  throttleAfterSignal,
  throttleAfterSuccesses,
  throttledPermits,
} from "../../src/core/load/host-throttle";
import { hostWaitReason, waitingOf } from "../../src/core/load/run-waits";
import { classifyTargetError, classifyTargetResponse } from "../../src/core/runs/outcome";

const T0 = Date.UTC(2026, 11, 1);
const rateLimited = { signal: "rate_limited", retryAfterMs: null } as const;

function throttle(limit: number, extra: Partial<HostThrottle> = {}): HostThrottle {
  return {
    limit,
    pausedUntilMs: null,
    lastSignal: "rate_limited",
    lastSignalAtMs: T0,
    lastCutAtMs: T0,
    ...extra,
  };
}

describe("targetOrigin", () => {
  it.each([
    ["https://api.example.com/hook?x=1", "https://api.example.com"],
    ["https://api.example.com:8443/hook", "https://api.example.com:8443"],
    ["http://127.0.0.1:9000/a", "http://127.0.0.1:9000"],
    ["HTTPS://API.example.com:443/", "https://api.example.com"],
    ["not a url", null],
  ])("%s is the host %s", (url, origin) => {
    expect(targetOrigin(url)).toBe(origin);
  });

  it("binding targets have no host", () => {
    expect(originOfTarget({ type: "queue", url: undefined })).toBeNull();
    expect(originOfTarget({ type: "http", url: "https://a.example/x" })).toBe("https://a.example");
    expect(originOfTarget({ url: "https://a.example/x" })).toBe("https://a.example");
  });
});

describe("hostSignalOf", () => {
  const answer = (status: number, retryAfterHeader: string | null = null) =>
    classifyTargetResponse({ status, retryAfterHeader, retryOnStatus: [], durationMs: 3, nowMs: T0 });

  it("reads 429 and 503 as slow down, with their Retry-After", () => {
    expect(hostSignalOf(answer(429, "5"))).toEqual({ signal: "rate_limited", retryAfterMs: 5_000 });
    expect(hostSignalOf(answer(503))).toEqual({ signal: "unavailable", retryAfterMs: null });
  });

  it("reads a timeout as slow down", () => {
    const timeout = classifyTargetError(new DOMException("timed out", "TimeoutError"), 30_000);
    expect(hostSignalOf(timeout)).toEqual({ signal: "timeout", retryAfterMs: null });
  });

  it("reads a 2xx as ok and other failures as nothing about load", () => {
    expect(hostSignalOf(answer(200))).toBe("ok");
    expect(hostSignalOf(answer(500))).toBeNull();
    expect(hostSignalOf(answer(404))).toBeNull();
    expect(hostSignalOf(classifyTargetError(new TypeError("connection refused"), 5))).toBeNull();
    expect(hostSignalOf({ kind: "success", status: null, durationMs: 1 })).toBeNull();
  });
});

describe("throttleAfterSignal", () => {
  it("starts a host's throttle at the start limit", () => {
    expect(throttleAfterSignal(null, rateLimited, T0)).toEqual(throttle(HOST_THROTTLE_SETTINGS.startCalls));
  });

  it("cuts the limit multiplicatively, once per cut interval", () => {
    const started = throttleAfterSignal(null, rateLimited, T0);
    const sameBurst = throttleAfterSignal(started, rateLimited, T0 + 999);
    expect(sameBurst.limit).toBe(8);
    const cut = throttleAfterSignal(sameBurst, rateLimited, T0 + 1_000);
    expect(cut).toMatchObject({ limit: 4, lastCutAtMs: T0 + 1_000, lastSignalAtMs: T0 + 1_000 });
    const floor = [1, 2, 3, 4, 5].reduce(
      (state, n) => throttleAfterSignal(state, rateLimited, T0 + n * 1_000),
      cut,
    );
    expect(floor.limit).toBe(HOST_THROTTLE_SETTINGS.minCalls);
  });

  it("pauses a host still refusing at the floor, twice as long each time up to a minute, afresh after a 2xx", () => {
    const { floorPauseMs, maxFloorPauseMs } = HOST_THROTTLE_SETTINGS;
    // Each refusal comes back at once, right after the last pause ended.
    let state = throttle(1);
    let nowMs = T0 + 1_000;
    const pauses: number[] = [];
    for (let n = 0; n < 9; n += 1) {
      state = throttleAfterSignal(state, rateLimited, nowMs);
      expect(state.limit).toBe(1);
      expect(throttledPermits(state, 0, nowMs).permits).toBe(0);
      pauses.push((state.pausedUntilMs as number) - nowMs);
      nowMs = state.pausedUntilMs as number;
    }
    expect(pauses).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60].map((s) => s * floorPauseMs));
    expect(Math.max(...pauses)).toBe(maxFloorPauseMs);
    // A 2xx once the pause has passed: the next refusal at the floor pauses for the first time again.
    const answered = throttleAfterSuccesses(state, 1, nowMs) as HostThrottle;
    expect(answered.pausedUntilMs).toBeNull();
    const again = throttleAfterSignal({ ...answered, limit: 1 }, rateLimited, nowMs + 1_000);
    expect((again.pausedUntilMs as number) - (nowMs + 1_000)).toBe(floorPauseMs);
  });

  it("does not pause a host above the floor without a Retry-After", () => {
    expect(throttleAfterSignal(throttle(4), rateLimited, T0 + 1_000)).toMatchObject({
      limit: 2,
      pausedUntilMs: null,
    });
  });

  it("pauses the host for its Retry-After, never shortening a pause, capped", () => {
    const paused = throttleAfterSignal(null, { signal: "unavailable", retryAfterMs: 30_000 }, T0);
    expect(paused.pausedUntilMs).toBe(T0 + 30_000);
    const shorter = throttleAfterSignal(paused, { signal: "rate_limited", retryAfterMs: 1_000 }, T0 + 10);
    expect(shorter.pausedUntilMs).toBe(T0 + 30_000);
    const huge = throttleAfterSignal(null, { signal: "rate_limited", retryAfterMs: 86_400_000 }, T0);
    expect(huge.pausedUntilMs).toBe(T0 + HOST_THROTTLE_SETTINGS.maxPauseMs);
  });
});

describe("throttleAfterSuccesses", () => {
  it("grows the limit by one call per window of successes", () => {
    expect(throttleAfterSuccesses(throttle(4), 4, T0)?.limit).toBeCloseTo(5);
    expect(throttleAfterSuccesses(throttle(2), 2 + 3, T0)?.limit).toBeCloseTo(4);
  });

  it("ends the throttle once the limit is back above its ceiling", () => {
    const { ceilingCalls } = HOST_THROTTLE_SETTINGS;
    expect(throttleAfterSuccesses(throttle(ceilingCalls), 1, T0)).toBeNull();
    expect(throttleAfterSuccesses(throttle(1), 10_000, T0)).toBeNull();
  });

  it("keeps a throttle whose pause has not ended", () => {
    const paused = throttle(16, { pausedUntilMs: T0 + 5_000 });
    const kept = throttleAfterSuccesses(paused, 100, T0);
    expect(kept).toMatchObject({ pausedUntilMs: T0 + 5_000 });
    expect(kept?.limit).toBeGreaterThan(16);
    expect(throttleAfterSuccesses(paused, 100, T0 + 5_000)).toBeNull();
  });
});

describe("throttledPermits", () => {
  it("grants what the whole limit leaves beside the calls in flight", () => {
    expect(throttledPermits(throttle(4.5), 1, T0)).toEqual({ permits: 3, pausedUntilMs: null });
    expect(throttledPermits(throttle(2), 5, T0)).toEqual({ permits: 0, pausedUntilMs: null });
  });

  it("grants nothing before a pause ends, and the limit after", () => {
    const paused = throttle(3, { pausedUntilMs: T0 + 2_000 });
    expect(throttledPermits(paused, 0, T0 + 1_999)).toEqual({ permits: 0, pausedUntilMs: T0 + 2_000 });
    expect(throttledPermits(paused, 0, T0 + 2_000)).toEqual({ permits: 3, pausedUntilMs: null });
  });
});

describe("a run held by its host's throttle", () => {
  it("waits with the cause host_throttled", () => {
    const reason = hostWaitReason("https://api.example.com", 4.7, T0 + 5_000);
    expect(reason).toBe(
      "host throttled: https://api.example.com said to slow down, waiting for a permit (4 calls in flight, paused until 2026-12-01T00:00:05.000Z)",
    );
    const waiting = waitingOf(
      {
        state: "SCHEDULED",
        kind: "schedule",
        events: [{ state: "SCHEDULED", reason, at_ms: T0 }],
        nextAttemptAtMs: null,
        scheduledAtMs: T0 - 1_000,
      },
      T0,
    );
    expect(waiting).toEqual({ cause: "host_throttled", reason, sinceMs: T0 });
  });
});
