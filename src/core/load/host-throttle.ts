// The adaptive throttle of a destination host, per tenant: AIMD on the calls in flight to it. A
// host that says "slow down" (429, 503, a timeout) has its limit cut (at most once per cut
// interval, so one burst of refusals counts once); each 2xx grows it back by one call per window
// of calls (1/limit per success, as TCP's congestion avoidance), and once it is back above the
// ceiling the throttle ends: a healthy host costs nothing. `Retry-After` on those answers pauses
// the whole host until then. At the floor (one call in flight) a host that still refuses at once
// would be called again as soon as each refusal came back, tens of times a second: there each
// further cut pauses the host instead, for a second and then twice as long each time, up to a
// minute, until a 2xx. Pure: the gate passes in what it holds and the time.
import type { TargetOutcome } from "../runs/outcome";

/** What a host answered that slows it down. */
export const HOST_SIGNALS = ["rate_limited", "unavailable", "timeout"] as const;
export type HostSignal = (typeof HOST_SIGNALS)[number];

export interface HostThrottleSettings {
  /** Above this many calls in flight the host is no longer throttled (the throttle ends). */
  ceilingCalls: number;
  /** The limit a host's first "slow down" sets (it was not throttled: no limit to cut yet). */
  startCalls: number;
  /** Each later cut multiplies the limit by this. */
  decreaseFactor: number;
  minCalls: number;
  /** Signals within this long of the last cut do not cut again (the calls were already out). */
  cutIntervalMs: number;
  /** A `Retry-After` pauses the host at most this long. */
  maxPauseMs: number;
  /** A cut at the floor pauses the host this long, then twice as long each time (no 2xx between). */
  floorPauseMs: number;
  maxFloorPauseMs: number;
}

export const HOST_THROTTLE_SETTINGS: HostThrottleSettings = {
  ceilingCalls: 16,
  startCalls: 8,
  decreaseFactor: 0.5,
  minCalls: 1,
  cutIntervalMs: 1_000,
  maxPauseMs: 10 * 60_000,
  floorPauseMs: 1_000,
  maxFloorPauseMs: 60_000,
};

export interface HostThrottle {
  /** Calls allowed in flight (fractional while it grows back: floor() of it are granted). */
  limit: number;
  /** No call starts before this instant (a `Retry-After`); null: not paused. */
  pausedUntilMs: number | null;
  lastSignal: HostSignal;
  lastSignalAtMs: number;
  lastCutAtMs: number;
}

/** One slow-down answer of the host: the signal, and its `Retry-After` if it gave one. */
export interface HostSignalEvent {
  signal: HostSignal;
  retryAfterMs: number | null;
}

/**
 * The destination host of an HTTP target (scheme, host and port, as URL's origin spells them),
 * or null for what is not a URL (binding targets are not throttled by host).
 * @example targetOrigin("https://api.example.com:8443/hook?x=1") // -> "https://api.example.com:8443"
 */
export function targetOrigin(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/** The destination host of a job's target; null for a binding target (a service, workflow, queue). */
export function originOfTarget(target: { type?: string; url?: unknown }): string | null {
  if ((target.type ?? "http") !== "http" || typeof target.url !== "string") return null;
  return targetOrigin(target.url);
}

/**
 * What an attempt's outcome says about its host: a slow-down signal, "ok" for a 2xx, or null for
 * anything else (a 404, a network error: those say nothing about load). The timeout is known by
 * the error classifyTargetError writes for it (src/core/runs/outcome.ts).
 * @example hostSignalOf({ kind: "retryable", status: 429, error: "", retryAfterMs: 5000, durationMs: 3 })
 * // -> { signal: "rate_limited", retryAfterMs: 5000 }
 */
export function hostSignalOf(outcome: TargetOutcome): HostSignalEvent | "ok" | null {
  if (outcome.kind === "success" || outcome.kind === "accepted") return outcome.status === null ? null : "ok";
  if (outcome.kind !== "retryable") return null;
  if (outcome.status === 429) return { signal: "rate_limited", retryAfterMs: outcome.retryAfterMs };
  if (outcome.status === 503) return { signal: "unavailable", retryAfterMs: outcome.retryAfterMs };
  if (outcome.status === null && outcome.error.endsWith("(timeout)")) {
    return { signal: "timeout", retryAfterMs: null };
  }
  return null;
}

/**
 * The throttle after one slow-down answer. The first one starts the throttle at `startCalls`;
 * later ones cut the limit multiplicatively, once per `cutIntervalMs`. A `Retry-After` pauses
 * the host until then (never shortening a pause already set).
 * @example throttleAfterSignal(null, { signal: "rate_limited", retryAfterMs: 2000 }, 0)
 * // -> { limit: 8, pausedUntilMs: 2000, lastSignal: "rate_limited", lastSignalAtMs: 0, lastCutAtMs: 0 }
 */
export function throttleAfterSignal(
  throttle: HostThrottle | null,
  event: HostSignalEvent,
  nowMs: number,
  settings: HostThrottleSettings = HOST_THROTTLE_SETTINGS,
): HostThrottle {
  const pauseUntil =
    event.retryAfterMs === null
      ? null
      : nowMs + Math.min(Math.max(0, event.retryAfterMs), settings.maxPauseMs);
  const pausedUntilMs = latest(throttle?.pausedUntilMs ?? null, pauseUntil);
  if (throttle === null) {
    return {
      limit: settings.startCalls,
      pausedUntilMs,
      lastSignal: event.signal,
      lastSignalAtMs: nowMs,
      lastCutAtMs: nowMs,
    };
  }
  const cuts = nowMs - throttle.lastCutAtMs >= settings.cutIntervalMs;
  const atFloor = throttle.limit <= settings.minCalls;
  return {
    limit: cuts
      ? Math.max(settings.minCalls, Math.floor(throttle.limit * settings.decreaseFactor))
      : throttle.limit,
    pausedUntilMs:
      cuts && atFloor ? latest(pausedUntilMs, nowMs + floorPauseMs(throttle, settings)) : pausedUntilMs,
    lastSignal: event.signal,
    lastSignalAtMs: nowMs,
    lastCutAtMs: cuts ? nowMs : throttle.lastCutAtMs,
  };
}

/** How long a cut at the floor pauses the host: twice its last pause (set by its last cut), or the first. */
function floorPauseMs(throttle: HostThrottle, settings: HostThrottleSettings): number {
  const lastPauseMs =
    throttle.pausedUntilMs === null ? 0 : Math.max(0, throttle.pausedUntilMs - throttle.lastCutAtMs);
  return lastPauseMs === 0
    ? settings.floorPauseMs
    : Math.min(settings.maxFloorPauseMs, Math.max(settings.floorPauseMs, lastPauseMs * 2));
}

/**
 * The throttle after `count` 2xx answers: each adds 1/limit (one call per window of calls). Null
 * once the limit is above the ceiling and no pause is pending: the host is no longer throttled.
 * @example throttleAfterSuccesses({ limit: 16, ...rest }, 1, nowMs) // -> null (16 + 1/16 > 16)
 */
export function throttleAfterSuccesses(
  throttle: HostThrottle,
  count: number,
  nowMs: number,
  settings: HostThrottleSettings = HOST_THROTTLE_SETTINGS,
): HostThrottle | null {
  let limit = throttle.limit;
  for (let index = 0; index < count && limit <= settings.ceilingCalls; index += 1)
    limit += 1 / Math.floor(limit);
  const paused = throttle.pausedUntilMs !== null && throttle.pausedUntilMs > nowMs;
  if (limit > settings.ceilingCalls && !paused) return null;
  // A pause that has passed is forgotten: the next cut at the floor starts its pauses afresh.
  return {
    ...throttle,
    limit: Math.min(limit, settings.ceilingCalls + 1),
    pausedUntilMs: paused ? throttle.pausedUntilMs : null,
  };
}

/**
 * How many more calls may start now, given the calls in flight under the throttle, and until
 * when none may (its pause). `throttledPermits({limit: 4.5, pausedUntilMs: null, ...}, 1, now)`
 * -> `{ permits: 3, pausedUntilMs: null }`.
 */
export function throttledPermits(
  throttle: HostThrottle,
  inFlight: number,
  nowMs: number,
): { permits: number; pausedUntilMs: number | null } {
  if (throttle.pausedUntilMs !== null && throttle.pausedUntilMs > nowMs) {
    return { permits: 0, pausedUntilMs: throttle.pausedUntilMs };
  }
  return { permits: Math.max(0, Math.floor(throttle.limit) - inFlight), pausedUntilMs: null };
}

function latest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
