// A call has a deadline (src/service/call-deadline.ts): a shard that never answers costs the
// caller an error to recover from, and a read shared by later callers is dropped rather than handed to them hung.
import { describe, expect, it } from "vitest";
import { withinDeadline } from "../../src/service/call-deadline";
import { askShards, sharedRead } from "../../src/service/tenant-fanout";

const never = <T>() => new Promise<T>(() => {});

describe("read deadlines", () => {
  it("passes an answer through and rejects, naming the read, once the deadline passes", async () => {
    await expect(withinDeadline(Promise.resolve(7), "shard 1", 50)).resolves.toBe(7);
    await expect(withinDeadline(never<number>(), "shard 3", 20)).rejects.toThrow(
      "shard 3: no answer within 20 ms",
    );
  });

  it("fails a fan-out whose shard never answers instead of waiting on it", async () => {
    const read = askShards([0, 1, 2], (shard) => (shard === 1 ? never<number>() : Promise.resolve(shard)));
    // The default deadline is seconds: the rejection comes from it, not from the test's timeout.
    await expect(read).rejects.toThrow("shard 1: no answer within");
  }, 20_000);

  it("drops a shared read that failed, so the next caller reads again", async () => {
    const env = {} as Env;
    const failed = sharedRead(env, "stats|t|10", () => withinDeadline(never<number>(), "shard 0", 10));
    await expect(failed).rejects.toThrow("shard 0");
    await expect(sharedRead(env, "stats|t|10", () => Promise.resolve(42))).resolves.toBe(42);
  });
});
