// Flow control: how many runs of one key may start now. One gate (a Durable Object per key)
// applies these rules to every shard's requests, so a key's limits hold across shards and
// consumer invocations. Pure: the gate passes in what it holds and the time.
import { z } from "zod";
import { durationSchema, parseDurationMs } from "../common/duration";

/** Keys: what QStash accepts in Upstash-Flow-Control-Key, and safe in a Durable Object name. */
export const FLOW_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;
export const FLOW_KEY_MESSAGE = "must be 1-100 characters: letters, digits, '.', '_', ':' or '-'";
export const DEFAULT_FLOW_PERIOD = "1s";
export const MAX_FLOW_PERIOD_MS = 7 * 86_400_000;
export const MAX_FLOW_LIMIT = 100_000;

/**
 * A job's `flow_control`: runs of every job with the same key (within the tenant) share the
 * limits, `rate` starts per `period` and `parallelism` calls in flight. At least one is given.
 * When jobs of one key carry different limits, the latest run to ask sets them.
 */
export const flowControlSchema = z
  .strictObject({
    key: z.string().regex(FLOW_KEY_PATTERN, FLOW_KEY_MESSAGE),
    rate: z.number().int().min(1).max(MAX_FLOW_LIMIT).optional(),
    period: durationSchema({ minMs: 1_000, maxMs: MAX_FLOW_PERIOD_MS }).default(DEFAULT_FLOW_PERIOD),
    parallelism: z.number().int().min(1).max(MAX_FLOW_LIMIT).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.rate === undefined && value.parallelism === undefined) {
      ctx.addIssue({ code: "custom", path: ["rate"], message: "give `rate`, `parallelism` or both" });
    }
  });
export type FlowControl = z.output<typeof flowControlSchema>;

/** What a gate enforces; null: that dimension is unlimited. */
export interface FlowLimits {
  rate: number | null;
  periodMs: number;
  parallelism: number | null;
}

/** A job's flow_control as gate limits. */
export function flowLimitsOf(flow: FlowControl): FlowLimits {
  return {
    rate: flow.rate ?? null,
    periodMs: parseDurationMs(flow.period) ?? 1_000,
    parallelism: flow.parallelism ?? null,
  };
}

/** How soon a shard whose runs wait on a full parallelism asks again (a permit comes back any time). */
export const PARALLELISM_RECHECK_MS = 500;

/**
 * How many permits may be granted now: `rate` minus the grants in the sliding window
 * (nowMs - periodMs, nowMs], and `parallelism` minus the leases in flight.
 *
 * @example permitsAvailable({ rate: 10, periodMs: 1000, parallelism: 3 }, 2, 1) === 2
 */
export function permitsAvailable(limits: FlowLimits, grantsInWindow: number, inFlight: number): number {
  const byRate = limits.rate === null ? Number.POSITIVE_INFINITY : limits.rate - grantsInWindow;
  const byParallelism =
    limits.parallelism === null ? Number.POSITIVE_INFINITY : limits.parallelism - inFlight;
  return Math.max(0, Math.min(byRate, byParallelism));
}

/**
 * When runs refused now should ask again: when the oldest grant leaves the rate window (the
 * earliest a rate permit frees), or soon when only parallelism is full (leases return as calls
 * finish), whichever is later when both are full. Never before `nowMs + 1`.
 *
 * @example nextAskAtMs({ rate: 1, periodMs: 1000, parallelism: null }, { oldestGrantMs: 400, rateFull: true, parallelismFull: false }, 500) === 1400
 */
export function nextAskAtMs(
  limits: FlowLimits,
  state: { oldestGrantMs: number | null; rateFull: boolean; parallelismFull: boolean },
  nowMs: number,
): number {
  let atMs = nowMs + 1;
  if (state.rateFull && state.oldestGrantMs !== null)
    atMs = Math.max(atMs, state.oldestGrantMs + limits.periodMs);
  if (state.parallelismFull) atMs = Math.max(atMs, nowMs + PARALLELISM_RECHECK_MS);
  return atMs;
}
