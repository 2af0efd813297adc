// A gate's wake that lands while the shard's own ask of that gate is in flight must not be lost:
// the refusal that follows would otherwise hold the runs until the gate's next-ask time (a minute
// for a key that was paused and has just been resumed).
import { describe, expect, it } from "vitest";
import { nextAskMs, noteGateWake } from "../../durable-objects/shard/flow/gate-wakes";
import type { ShardState } from "../../durable-objects/shard/state/shard-state";

/** The wakes are kept per shard instance, keyed by its state: any object stands in. */
const shardStorage = () => ({}) as ShardState;

describe("the next ask of a refused run", () => {
  const askedAtMs = 1_000;
  const gateRetryAtMs = 61_000;
  const nowMs = 1_050;

  it("is the gate's own time when no wake came", () => {
    expect(nextAskMs(shardStorage(), "gate-a", askedAtMs, gateRetryAtMs, nowMs)).toBe(gateRetryAtMs);
  });

  it("is now when the gate woke this shard while the ask was in flight", () => {
    const sql = shardStorage();
    noteGateWake(sql, "gate-a", 1_020);
    expect(nextAskMs(sql, "gate-a", askedAtMs, gateRetryAtMs, nowMs)).toBe(nowMs + 1);
  });

  it("is the gate's own time when the wake came before the ask (the ask saw its effect)", () => {
    const sql = shardStorage();
    noteGateWake(sql, "gate-a", 900);
    expect(nextAskMs(sql, "gate-a", askedAtMs, gateRetryAtMs, nowMs)).toBe(gateRetryAtMs);
  });

  it("keeps one gate's wake and one shard's wake to themselves", () => {
    const sql = shardStorage();
    noteGateWake(sql, "gate-b", 1_020);
    noteGateWake(shardStorage(), "gate-a", 1_020);
    expect(nextAskMs(sql, "gate-a", askedAtMs, gateRetryAtMs, nowMs)).toBe(gateRetryAtMs);
  });
});
