// The consumer's hand-off clock (src/delivery/hand-off-watch.ts): one timer per batch decides when a
// call has run long enough to give its slot back.
import { describe, expect, it } from "vitest";
import { HANDED_OFF, HandOffWatch } from "../../src/delivery/hand-off-watch";

function resolvesAfter<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

describe("HandOffWatch", () => {
  it("gives a call that ends in time its own outcome, and hands off one still running", async () => {
    const watch = new HandOffWatch(50);
    const [quick, slow] = await Promise.all([
      watch.watch(resolvesAfter(5, "quick"), () => true),
      watch.watch(resolvesAfter(400, "slow"), () => true),
    ]);
    expect(quick).toBe("quick");
    expect(slow).toBe(HANDED_OFF);
  });

  it("keeps waiting for a call while there is no room to hand it off, and hands it off once there is", async () => {
    const watch = new HandOffWatch(20);
    let asked = 0;
    const full = await watch.watch(resolvesAfter(150, "ended"), () => {
      asked += 1;
      return false;
    });
    expect(full).toBe("ended");
    expect(asked).toBeGreaterThan(1);
    let room = false;
    setTimeout(() => {
      room = true;
    }, 60);
    const startedMs = Date.now();
    expect(await watch.watch(resolvesAfter(1_000, "late"), () => room)).toBe(HANDED_OFF);
    expect(Date.now() - startedMs).toBeLessThan(1_000);
  });

  it("passes a failing call's error on", async () => {
    const watch = new HandOffWatch(50);
    await expect(watch.watch(Promise.reject(new Error("boom")), () => true)).rejects.toThrow("boom");
  });
});
