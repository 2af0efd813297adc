// Which lane a shard's runs take to their targets. DISPATCH_LANE = "queue" (the default, and
// what local development runs): every message goes into the shard's dispatch queue. "pool": each
// message goes to one of the shard's DISPATCHERS_PER_SHARD dispatcher objects
// (durable-objects/dispatcher/dispatcher.ts), which call at once; a message none of them has room for, or
// whose hand-over fails, goes into the queue as before. Either way the same claim at the shard
// decides what runs, so a message that reaches both a dispatcher and the queue still runs once.
// Why the pool exists (a Queues consumer ramps up after a burst's backlog forms; named objects
// need no ramp): docs/SCALING.md, "dispatch lane".
import { logEvent } from "../log";
import type { DispatchMessage } from "../shard/protocol";
import { dispatchQueueOf } from "./dispatch-queues";

/** What a shard sends its runs through (a Queue binding satisfies it). */
export interface DispatchSender {
  sendBatch(messages: Iterable<MessageSendRequest<DispatchMessage>>): Promise<unknown>;
}

/** What a dispatcher answers a hand-over with: `full` sends the messages on through the queue. */
export type DispatcherAnswer = "accepted" | "full";

const DEFAULT_DISPATCHERS_PER_SHARD = 8;

export function dispatchLaneOf(env: Env): "queue" | "pool" {
  return env.DISPATCH_LANE === "pool" ? "pool" : "queue";
}

export function dispatchersPerShard(env: Env): number {
  const count = Number(env.DISPATCHERS_PER_SHARD);
  return Number.isInteger(count) && count >= 1 ? count : DEFAULT_DISPATCHERS_PER_SHARD;
}

/** The sender a shard's pass uses: its queue, or its dispatcher pool in front of that queue. */
export function dispatchSenderOf(env: Env, shard: number): DispatchSender {
  const queue = dispatchQueueOf(env, shard);
  if (dispatchLaneOf(env) === "queue" || shard < 0) return queue;
  return new DispatcherPoolSender(env, shard, queue);
}

/** Next dispatcher per shard: round robin, so one shard's bursts spread over its whole pool. */
const nextDispatcher = new Map<number, number>();

class DispatcherPoolSender implements DispatchSender {
  constructor(
    private readonly env: Env,
    private readonly shard: number,
    private readonly queue: DispatchSender,
  ) {}

  async sendBatch(requests: Iterable<MessageSendRequest<DispatchMessage>>): Promise<unknown> {
    const all = [...requests];
    // A message with a delay is due later than a dispatcher should hold it: the queue holds it.
    const later = all.filter((request) => (request.delaySeconds ?? 0) > 0);
    const now = all.filter((request) => (request.delaySeconds ?? 0) <= 0).map((request) => request.body);
    const refused = now.length === 0 ? [] : await this.handOver(now);
    const overflow = [
      ...later,
      ...refused.map((body): MessageSendRequest<DispatchMessage> => ({ body, contentType: "json" })),
    ];
    if (overflow.length > 0) await this.queue.sendBatch(overflow);
    return undefined;
  }

  /** Hands the messages to dispatchers, trying each member once; what none took is returned. */
  private async handOver(messages: DispatchMessage[]): Promise<DispatchMessage[]> {
    const size = dispatchersPerShard(this.env);
    const first = nextDispatcher.get(this.shard) ?? 0;
    nextDispatcher.set(this.shard, (first + 1) % size);
    for (let tried = 0; tried < size; tried++) {
      const member = (first + tried) % size;
      const answer = await this.askMember(member, messages);
      if (answer === "accepted") return [];
    }
    return messages;
  }

  private async askMember(member: number, messages: DispatchMessage[]): Promise<DispatcherAnswer | "failed"> {
    const stub = this.env.DISPATCHER.get(this.env.DISPATCHER.idFromName(`${this.shard}:${member}`));
    try {
      return await stub.dispatch(messages);
    } catch (error) {
      logEvent("dispatcher.hand_over_failed", { shard: this.shard, member, error });
      return "failed";
    }
  }
}
