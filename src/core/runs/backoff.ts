import { z } from "zod";
import { durationMs, durationSchema } from "../common/duration";

/** How the delay between a job's retries grows (the `retry.backoff` of its body). */
export const backoffPolicySchema = z.strictObject({
  initial: durationSchema({ minMs: 0 }).default("30s"),
  max: durationSchema({ minMs: 0 }).default("1h"),
  multiplier: z.number().min(1).max(10).default(2),
  jitter: z.enum(["full", "equal", "none"]).default("full"),
});
export type BackoffPolicy = z.infer<typeof backoffPolicySchema>;

/**
 * The un-jittered delay before retry number `attempt`: `initial * multiplier^(attempt - 1)`,
 * capped at `max`. Attempt 1 is the first failure.
 *
 * Never overflows: the exponent is compared with the number of doublings that reach the cap
 * before anything is raised to a power, so attempt 1,000,000 simply returns the cap.
 *
 * @example backoffBaseMs(3, { initial: "30s", max: "1h", multiplier: 2, jitter: "none" }) === 120_000
 */
export function backoffBaseMs(attempt: number, policy: BackoffPolicy): number {
  assertAttempt(attempt);
  const initialMs = durationMs(policy.initial);
  const maxMs = durationMs(policy.max);
  if (initialMs === 0 || maxMs === 0) return 0;
  if (initialMs >= maxMs) return maxMs;
  const exponent = attempt - 1;
  if (policy.multiplier <= 1 || exponent === 0) return initialMs;
  // Smallest exponent at which initial * multiplier^exponent >= max.
  const exponentAtCap = Math.log(maxMs / initialMs) / Math.log(policy.multiplier);
  if (exponent >= exponentAtCap) return maxMs;
  return Math.min(maxMs, Math.round(initialMs * policy.multiplier ** exponent));
}

/**
 * The delay before retry number `attempt` (1 = after the first failure), with the policy's
 * jitter applied. `random` returns a number in [0, 1) (pass `Math.random` at the edge).
 *
 * - `full`:  uniform in [0, base)          (AWS "full jitter": spreads a thundering herd best)
 * - `equal`: uniform in [base/2, base)     (never retries sooner than half the base)
 * - `none`:  exactly base
 *
 * The result is an integer number of milliseconds in [0, max].
 *
 * @example backoffDelayMs(2, { initial: "30s", max: "1h", multiplier: 2, jitter: "equal" }, () => 0) === 30_000
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const baseMs = backoffBaseMs(attempt, policy);
  switch (policy.jitter) {
    case "none":
      return baseMs;
    case "full":
      return Math.floor(unit(random) * baseMs);
    case "equal":
      return Math.floor(baseMs / 2 + (unit(random) * baseMs) / 2);
  }
}

/**
 * The delay before the next attempt, honouring a target's `Retry-After` within the cap.
 *
 * Rule: the backoff is a floor and `max` is a ceiling. A `Retry-After` longer than the
 * jittered backoff wins (the target asked us to wait), but never beyond the policy's `max`
 * (a target cannot park a run for a week). A shorter `Retry-After` does not shorten the
 * backoff: it would undo the jitter that protects the target from a synchronized herd.
 *
 * @example
 * // backoff for attempt 1 is 30s; the target asked for 120s; the cap is 1h -> 120s
 * retryDelayMs(1, { initial: "30s", max: "1h", multiplier: 2, jitter: "none" }, Math.random, 120_000) === 120_000
 */
export function retryDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number,
  retryAfterMs: number | null,
): number {
  const backoffMs = backoffDelayMs(attempt, policy, random);
  if (retryAfterMs === null || !Number.isFinite(retryAfterMs) || retryAfterMs <= backoffMs) return backoffMs;
  return Math.max(backoffMs, Math.min(Math.ceil(retryAfterMs), durationMs(policy.max)));
}

/** Clamps a random source into [0, 1) so a sloppy source cannot push a delay past its bound. */
function unit(random: () => number): number {
  const value = random();
  if (!(value > 0)) return 0; // also catches NaN
  return value < 1 ? value : 1 - Number.EPSILON;
}

function assertAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  }
}
