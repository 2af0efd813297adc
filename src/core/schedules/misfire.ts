import { z } from "zod";
import { durationSchema } from "../common/duration";

/** What a job does with instants it missed by more than its grace (its `misfire` body field). */
export const misfirePolicySchema = z.strictObject({
  policy: z.enum(["fire_now", "skip", "catch_up"]).default("fire_now"),
  grace: durationSchema().default("60s"),
  max_catch_up: z.number().int().min(1).max(1000).default(10),
});
export type MisfirePolicy = z.infer<typeof misfirePolicySchema>;

export interface MisfireDecision {
  /** Instants to dispatch now (ascending, each with its own idempotency key). */
  fire: number[];
  /** Instants to record as SKIPPED (ascending). */
  skip: number[];
}

/**
 * Splits due instants into those that are merely late (within `graceMs` of now: dispatch them
 * as usual) and those that were missed (older than the grace: the misfire policy decides).
 * An instant exactly `graceMs` old is still on time; instants in the future are on time.
 *
 * @example
 * splitLateInstants([1_000, 50_000, 95_000], 100_000, 10_000)
 * // -> { onTime: [95_000], missed: [1_000, 50_000] }
 */
export function splitLateInstants(
  instantsMs: readonly number[],
  nowMs: number,
  graceMs: number,
): { onTime: number[]; missed: number[] } {
  const onTime: number[] = [];
  const missed: number[] = [];
  for (const instantMs of instantsMs) {
    (nowMs - instantMs > graceMs ? missed : onTime).push(instantMs);
  }
  return { onTime, missed };
}

/**
 * What to do with instants that passed unnoticed (outage, paused shard, resume after pause).
 *
 * - `fire_now` (default): fire once, for the most recent missed instant; skip the others.
 * - `skip`: fire none; the schedule continues with the next future instant.
 * - `catch_up`: fire the most recent `max_catch_up` instants, oldest first (like a Temporal
 *   schedule's catch-up window, expressed as a count); skip the older ones.
 *
 * Every missed instant lands in exactly one of `fire` or `skip`, so run history can show it.
 *
 * @example
 * misfireDecision({ missedInstantsMs: [1, 2, 3], policy: { policy: "catch_up", grace: "60s", max_catch_up: 2 } })
 * // -> { fire: [2, 3], skip: [1] }
 */
export function misfireDecision(input: {
  missedInstantsMs: readonly number[];
  policy: MisfirePolicy;
}): MisfireDecision {
  const missed = [...input.missedInstantsMs].sort((a, b) => a - b);
  const fireCount = firedCount(input.policy, missed.length);
  const splitAt = missed.length - fireCount;
  return { fire: missed.slice(splitAt), skip: missed.slice(0, splitAt) };
}

function firedCount(policy: MisfirePolicy, missedCount: number): number {
  switch (policy.policy) {
    case "skip":
      return 0;
    case "fire_now":
      return Math.min(1, missedCount);
    case "catch_up":
      return Math.min(Math.max(0, Math.floor(policy.max_catch_up)), missedCount);
  }
}
