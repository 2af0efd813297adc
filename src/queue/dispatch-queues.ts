// The dispatch queues and the fixed map from shard to queue: shard s sends to queue
// s % DISPATCH_QUEUES. Queue 0 is `edgecron-dispatch` (binding DISPATCH_QUEUE), queue i > 0 is
// `edgecron-dispatch-{i}` (binding DISPATCH_QUEUE_{i}). One consumer serves them all and they
// share the dead-letter queue. A queue carries at most 5,000 messages/s and 250 concurrent
// consumer invocations (Cloudflare's published limits): more queues, more of both.

import { cappedForShard } from "./connection-cap";

export const DISPATCH_QUEUE_PREFIX = "edgecron-dispatch";

/** The queue name of dispatch queue `index`. */
export function dispatchQueueName(index: number): string {
  return index === 0 ? DISPATCH_QUEUE_PREFIX : `${DISPATCH_QUEUE_PREFIX}-${index}`;
}

/** Whether a consumer batch comes from one of the dispatch queues. */
export function isDispatchQueue(queueName: string): boolean {
  return queueName === DISPATCH_QUEUE_PREFIX || /^edgecron-dispatch-\d+$/.test(queueName);
}

export function dispatchQueueCount(env: Env): number {
  const count = Number(env.DISPATCH_QUEUES);
  return Number.isInteger(count) && count >= 1 ? count : 1;
}

/**
 * Which dispatch queue a shard sends to. A shard that was never told its number (-1: nothing
 * was ever pushed to it, so it holds only what a test seeded) sends to queue 0.
 */
export function dispatchQueueIndex(shard: number, queueCount: number): number {
  return shard < 0 ? 0 : shard % queueCount;
}

function bindingName(index: number): string {
  return index === 0 ? "DISPATCH_QUEUE" : `DISPATCH_QUEUE_${index}`;
}

/**
 * The queue binding a shard sends to. Throws (a configuration bug) when DISPATCH_QUEUES names a
 * queue that is not bound: silently sending elsewhere would hide it.
 */
export function dispatchQueueOf(env: Env, shard: number): Queue {
  const index = dispatchQueueIndex(shard, dispatchQueueCount(env));
  // The bindings are numbered, so they are read by name; Env types each one, not the family.
  const queue = (env as unknown as Record<string, unknown>)[bindingName(index)];
  if (typeof queue !== "object" || queue === null || typeof (queue as Queue).sendBatch !== "function") {
    throw new Error(`DISPATCH_QUEUES is ${dispatchQueueCount(env)} but ${bindingName(index)} is not bound`);
  }
  return cappedForShard(env, shard, queue as Queue);
}
