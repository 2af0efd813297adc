// What one pass of the timing wheel needs to know, read from the environment once per pass. Its
// own module so the tick and dispatch (which both read it) do not import each other.
import { dispatchQueueOf } from "../../src/queue/dispatch-queues";
import { shardCount } from "../../src/shard/client";
import type { DispatchMessage } from "../../src/shard/protocol";
import { unclaimedBudget } from "./budget";
import type { FlowAdmission } from "./flow-admission";

/**
 * Runs per queue message unless DISPATCH_RUNS_PER_MESSAGE says otherwise. A message costs the
 * queue one operation and the consumer one claim and one report RPC, whatever it holds; locally
 * the queue hands the consumer one batch of ≤ 100 messages at a time, so this is also what lets
 * one batch keep the target calls busy.
 */
export const RUNS_PER_MESSAGE = 50;
const MAX_RUNS_PER_MESSAGE = 100;
const DEFAULT_LEASE_MS = 30_000;

/** DISPATCH_RUNS_PER_MESSAGE as a whole number in 1..100; anything else is the default. */
export function runsPerMessage(setting: string | undefined): number {
  const value = Number(setting);
  return Number.isInteger(value) && value >= 1 ? Math.min(value, MAX_RUNS_PER_MESSAGE) : RUNS_PER_MESSAGE;
}

/** The one thing a pass does with the dispatch queue. */
export interface DispatchSender {
  sendBatch(messages: Iterable<MessageSendRequest<DispatchMessage>>): Promise<unknown>;
}

export interface TickSettings {
  shard: number;
  leaseMs: number;
  /** Runs bundled into one queue message. */
  runsPerMessage: number;
  /** Dispatched-but-unclaimed runs allowed at once: backpressure on a slow consumer. */
  maxUnclaimed: number;
  queue: DispatchSender;
  /** Flow control (job keys, tenant limits) before a send; unset: every due run is sent. */
  admission?: FlowAdmission;
  /**
   * Called before each due job is fired, with the count fired so far in this pass. Production
   * leaves it unset; the test seam (./test-faults.ts) uses it to crash a pass midway.
   */
  beforeFire?: (firedSoFar: number) => void;
}

export function tickSettings(env: Env, shard: number): TickSettings {
  return {
    shard,
    leaseMs: Number(env.DISPATCH_LEASE_MS) || DEFAULT_LEASE_MS,
    runsPerMessage: runsPerMessage(env.DISPATCH_RUNS_PER_MESSAGE),
    maxUnclaimed: unclaimedBudget(shardCount(env)),
    queue: dispatchQueueOf(env, shard),
    admission: { env, holder: shard, leaseMs: Number(env.DISPATCH_LEASE_MS) || DEFAULT_LEASE_MS },
  };
}
