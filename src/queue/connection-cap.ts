// Cloudflare's six connections, emulated where they are not enforced. On Cloudflare an invocation
// (a Queue consumer's or a Durable Object's) keeps at most 6 outbound connections waiting for
// their answer's headers; the 7th waits for one of them. Locally (wrangler dev, Miniflare,
// workerd) nothing caps them, so a consumer's or a shard's local fan-out is wider than it could
// ever be on Cloudflare. With EMULATE_CONNECTION_CAP = "true" (the bench sets it; dev may) the
// dispatch consumer starts at most 6 target calls per invocation and holds each slot until its
// call has settled (handing a slow call off frees nothing, as on Cloudflare), and each shard sends
// at most 6 sendBatch calls at once. Off, the local limits stay as they were.
import { semaphore } from "./pool";

export const CLOUDFLARE_CONNECTIONS = 6;

export function connectionCapOn(env: Env): boolean {
  return env.EMULATE_CONNECTION_CAP === "true";
}

/** One set of 6 slots per shard: locally every shard's Durable Object shares one isolate. */
const shardSlots = new Map<number, ReturnType<typeof semaphore>>();

/** `queue` as a shard sends to it: its sendBatch calls share the shard's 6 connections. */
export function cappedForShard(env: Env, shard: number, queue: Queue): Queue {
  if (!connectionCapOn(env)) return queue;
  let slots = shardSlots.get(shard);
  if (slots === undefined) {
    slots = semaphore(CLOUDFLARE_CONNECTIONS);
    shardSlots.set(shard, slots);
  }
  const held = slots;
  return new Proxy(queue, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop !== "sendBatch" && prop !== "send")
        return typeof value === "function" ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const release = await held.acquire();
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          release();
        }
      };
    },
  });
}
