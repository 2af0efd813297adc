// Cloudflare's six outbound connections, emulated for local runs: with EMULATE_CONNECTION_CAP a
// shard never has more than 6 sendBatch calls open at once, and without it nothing changes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLOUDFLARE_CONNECTIONS, cappedForShard } from "../../src/queue/connection-cap";

/** Calls open at once, over every queue that shares it. */
class OpenCalls {
  open = 0;
  peak = 0;
}

/** A queue whose sendBatch answers after `ms`, counting its open calls in `calls`. */
function slowQueue(ms: number, calls = new OpenCalls()): { queue: Queue; peak: () => number } {
  const queue = {
    async sendBatch() {
      calls.open += 1;
      calls.peak = Math.max(calls.peak, calls.open);
      await new Promise((resolve) => setTimeout(resolve, ms));
      calls.open -= 1;
    },
    async send() {},
  } as unknown as Queue;
  return { queue, peak: () => calls.peak };
}

describe("connection cap", () => {
  it("holds a shard's sendBatch calls to 6 at once when emulated", async () => {
    const capped = { ...env, EMULATE_CONNECTION_CAP: "true" };
    const { queue, peak } = slowQueue(20);
    const sender = cappedForShard(capped, 9001, queue);
    await Promise.all(Array.from({ length: 20 }, () => sender.sendBatch([])));
    expect(peak()).toBe(CLOUDFLARE_CONNECTIONS);
  });

  it("shares the 6 between every queue one shard sends to, not across shards", async () => {
    const capped = { ...env, EMULATE_CONNECTION_CAP: "true" };
    const oneShard = new OpenCalls();
    const first = slowQueue(20, oneShard);
    const second = slowQueue(20, oneShard);
    const other = slowQueue(20);
    await Promise.all([
      ...Array.from({ length: 6 }, () => cappedForShard(capped, 9002, first.queue).sendBatch([])),
      ...Array.from({ length: 6 }, () => cappedForShard(capped, 9002, second.queue).sendBatch([])),
      ...Array.from({ length: 6 }, () => cappedForShard(capped, 9003, other.queue).sendBatch([])),
    ]);
    expect(oneShard.peak).toBe(CLOUDFLARE_CONNECTIONS); // 12 calls of shard 9002, over two queues
    expect(other.peak()).toBe(CLOUDFLARE_CONNECTIONS); // shard 9003 has its own six
  });

  it("changes nothing when off", async () => {
    const { queue, peak } = slowQueue(20);
    const sender = cappedForShard({ ...env, EMULATE_CONNECTION_CAP: "false" }, 9004, queue);
    expect(sender).toBe(queue);
    await Promise.all(Array.from({ length: 20 }, () => sender.sendBatch([])));
    expect(peak()).toBe(20);
  });
});
