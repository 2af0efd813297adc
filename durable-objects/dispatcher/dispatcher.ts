import { DurableObject } from "cloudflare:workers";
import { handleDispatchBatch } from "../../src/delivery/dispatch-consumer";
import { logEvent } from "../../src/log";
import type { DispatcherAnswer } from "../../src/queue/dispatch-lane";
import { dispatchQueueOf } from "../../src/queue/dispatch-queues";
import type { DispatchMessage } from "../../src/shard/protocol";

/**
 * Runs one dispatcher holds at once (accepted, not yet reported or handed off). Past it a
 * shard's next message goes to the dispatch queue instead: a dispatcher never builds a queue of
 * its own in front of punctual runs. Six connections per object start 6 calls at a time; this
 * is a few rounds of them.
 */
export const DISPATCHER_MAX_RUNS = 48;

/**
 * The dispatcher pool's member: one of a fixed set of named objects per shard (`<shard>:<i>`)
 * that calls targets for the runs its shard hands it, with the consumer's own code
 * (src/delivery/dispatch-consumer.ts: claim at the shard, call, report), so the claim and its fence
 * stay the authority on what runs once. What it cannot do goes through the dispatch queue: a
 * message it has no room for, and a message the consumer code would have retried (the shard was
 * unreachable, or a bug). It keeps nothing: a dispatcher that dies loses only calls in flight,
 * whose runs the shard's leases send again, as for a consumer that crashed.
 */
export class Dispatcher extends DurableObject<Env> {
  private heldRuns = 0;

  /** Takes the messages and returns at once: the calls go on in this object. */
  async dispatch(messages: DispatchMessage[]): Promise<DispatcherAnswer> {
    const runs = messages.reduce((sum, message) => sum + message.runs.length, 0);
    if (this.heldRuns > 0 && this.heldRuns + runs > DISPATCHER_MAX_RUNS) return "full";
    this.heldRuns += runs;
    // One line per hand-over (a message bundles several runs); each run's own line is the consumer code's.
    logEvent("dispatcher.accepted", { shard: messages[0]?.shard, messages: messages.length, runs });
    const work = handleDispatchBatch(this.batchOf(messages), this.env, this.executionContext())
      .catch((error) => logEvent("dispatcher.batch_failed", { error }))
      .finally(() => {
        this.heldRuns -= runs;
      });
    this.ctx.waitUntil(work);
    return "accepted";
  }

  /** The messages as the consumer code reads a queue batch; a retry goes to the dispatch queue. */
  private batchOf(messages: DispatchMessage[]): MessageBatch<DispatchMessage> {
    const receivedAt = new Date();
    const wrapped = messages.map(
      (body, index): Message<DispatchMessage> => ({
        id: `dispatcher-${receivedAt.getTime()}-${index}`,
        timestamp: receivedAt,
        body,
        attempts: 1,
        ack: () => {},
        retry: (options) => this.forwardToQueue(body, options?.delaySeconds),
      }),
    );
    return {
      messages: wrapped,
      queue: "dispatcher",
      metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: receivedAt } },
      ackAll: () => {},
      retryAll: (options) => {
        for (const body of messages) this.forwardToQueue(body, options?.delaySeconds);
      },
    };
  }

  private forwardToQueue(body: DispatchMessage, delaySeconds: number | undefined): void {
    const send = dispatchQueueOf(this.env, body.shard)
      .send(
        body,
        delaySeconds === undefined ? { contentType: "json" } : { contentType: "json", delaySeconds },
      )
      .catch((error) => logEvent("dispatcher.forward_failed", { shard: body.shard, error }));
    this.ctx.waitUntil(send);
  }

  /** The consumer code hands slow calls to `waitUntil`; in an object they simply go on. */
  private executionContext(): ExecutionContext {
    return {
      waitUntil: (promise: Promise<unknown>) => this.ctx.waitUntil(promise),
      passThroughOnException: () => {},
      exports: this.ctx.exports,
      props: {},
    };
  }
}
