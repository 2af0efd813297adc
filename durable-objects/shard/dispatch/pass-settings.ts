// What one pass of the timing wheel needs to know, read from the environment once per pass: the
// sends to the queue read it here, and the tick (../wheel/tick.ts) from the layer above.

import { slowTenantInFlightCap } from "../../../src/core/runs/slow-calls";
import { type DispatchSender, dispatchSenderOf } from "../../../src/queue/dispatch-lane";
import { runTokenSecret } from "../../../src/run-tokens";
import { shardCount } from "../../../src/shard/client";
import type { FlowAdmission } from "../flow/flow-admission";
import { MAX_DISPATCH_LEAD_MS } from "../instants/dispatch-lead";
import { windowLimits } from "./budget";

/**
 * Runs per queue message unless DISPATCH_RUNS_PER_MESSAGE says otherwise. A message costs the
 * queue one operation and the consumer one claim and one report RPC, whatever it holds; locally
 * the queue hands the consumer one batch of ≤ 100 messages at a time, so this is also what lets
 * one batch keep the target calls busy.
 */
export const RUNS_PER_MESSAGE = 50;
const MAX_RUNS_PER_MESSAGE = 100;
const DEFAULT_LEASE_MS = 30_000;
/**
 * How far ahead of their instant runs are created and sent to the queue (./ahead.ts), unless
 * DISPATCH_LEAD_MS says otherwise. It must cover what a shard needs to create and send one
 * instant's runs before that instant: docs/BENCHMARKS.md has the measurement behind the default.
 */
export const DEFAULT_DISPATCH_LEAD_MS = 5_000;

/** DISPATCH_LEAD_MS as whole milliseconds in 0..60,000 (0: dispatch at the instant, as before). */
export function dispatchLeadMs(setting: string | undefined): number {
  if (setting === undefined || setting.trim() === "") return DEFAULT_DISPATCH_LEAD_MS;
  const value = Number(setting);
  return Number.isInteger(value) && value >= 0
    ? Math.min(value, MAX_DISPATCH_LEAD_MS)
    : DEFAULT_DISPATCH_LEAD_MS;
}

/** DISPATCH_RUNS_PER_MESSAGE as a whole number in 1..100; anything else is the default. */
export function runsPerMessage(setting: string | undefined): number {
  const value = Number(setting);
  return Number.isInteger(value) && value >= 1 ? Math.min(value, MAX_RUNS_PER_MESSAGE) : RUNS_PER_MESSAGE;
}

/** The one thing a pass does with the dispatch lane (its queue, or its dispatcher pool). */
export type { DispatchSender } from "../../../src/queue/dispatch-lane";

export interface TickSettings {
  shard: number;
  leaseMs: number;
  /** Runs whose instant is at most this far ahead are created and sent now (./ahead.ts). */
  leadMs: number;
  /** Runs bundled into one queue message. */
  runsPerMessage: number;
  /**
   * The dispatch window: runs handed to the execution path and not yet reported, allowed at once
   * (./budget.ts). The alarm pass sets it from the shard's adaptive window (../wheel/backlog.ts); this
   * default is the window's largest size.
   */
  window: number;
  /** A tenant's runs in flight at this shard, at most, while it has slow calls here. */
  slowTenantInFlight: number;
  /** A tenant's weight in the window's fair share (default 1). */
  tenantWeight?: (tenantId: string) => number;
  queue: DispatchSender;
  /**
   * The run-token secret: runs sent ahead of their instant carry their attempt's token, minted
   * here before the instant instead of by the consumer at it. Unset: the consumer mints every one.
   */
  runTokenSecret?: () => Promise<string>;
  /**
   * Whether this pass may look for the next instants of tenants under their share while the
   * window is full (./ahead.ts, queueAheadWithinShares); the shard paces it
   * (../wheel/backlog.ts). Unset: every pass may.
   */
  shareScanDue?: (nowMs: number) => boolean;
  /** Flow control (job keys, tenant limits) before a send; unset: every due run is sent. */
  admission?: FlowAdmission;
  /**
   * Called before each due job is fired, with the count fired so far in this pass. Production
   * leaves it unset; the test seam (../test-seam.ts) uses it to crash a pass midway.
   */
  beforeFire?: (firedSoFar: number) => void;
}

export function tickSettings(env: Env, shard: number): TickSettings {
  return {
    shard,
    leaseMs: Number(env.DISPATCH_LEASE_MS) || DEFAULT_LEASE_MS,
    leadMs: dispatchLeadMs(env.DISPATCH_LEAD_MS),
    runsPerMessage: runsPerMessage(env.DISPATCH_RUNS_PER_MESSAGE),
    window: windowLimits(shardCount(env)).maxSize,
    slowTenantInFlight: slowTenantInFlightCap(shardCount(env)),
    queue: dispatchSenderOf(env, shard),
    runTokenSecret: () => runTokenSecret(env),
    admission: { env, holder: shard, leaseMs: Number(env.DISPATCH_LEASE_MS) || DEFAULT_LEASE_MS },
  };
}
