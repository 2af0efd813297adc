import { describe, expect, it } from "vitest";
import { LazyHeap, MinHeap } from "../../src/core/common/min-heap";

interface Entry {
  id: number;
  atMs: number;
  live: boolean;
}

/** A seeded generator (mulberry32), so a failure names the case it failed on. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe("MinHeap", () => {
  it("pops in order", () => {
    const next = random(1);
    const heap = new MinHeap<number>((a, b) => a < b);
    const values = Array.from({ length: 500 }, () => Math.floor(next() * 100));
    for (const value of values) heap.push(value);
    const popped: number[] = [];
    for (let value = heap.pop(); value !== undefined; value = heap.pop()) popped.push(value);
    expect(popped).toEqual([...values].sort((a, b) => a - b));
  });
});

describe("LazyHeap.top", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`reads the first valid entries in order and leaves every valid entry in the heap (seed ${seed})`, () => {
      const next = random(seed);
      const heap = new LazyHeap<Entry>(
        (a, b) => a.atMs < b.atMs,
        (entry) => entry.live,
      );
      const entries = Array.from({ length: 1 + Math.floor(next() * 800) }, (_, id) => ({
        id,
        atMs: Math.floor(next() * 1_000),
        live: next() > 0.3,
      }));
      for (const entry of entries) heap.push(entry);
      const untilMs = Math.floor(next() * 1_200);
      const limit = Math.floor(next() * 600);
      const taken = heap.top(limit, (entry) => entry.atMs <= untilMs);
      const expected = entries
        .filter((entry) => entry.live && entry.atMs <= untilMs)
        .sort((a, b) => a.atMs - b.atMs)
        .slice(0, limit);
      // Ties may come in either order: the times, and which entries, must match.
      expect(taken.map((entry) => entry.atMs)).toEqual(expected.map((entry) => entry.atMs));
      const lastAtMs = expected.at(-1)?.atMs;
      const sure = (list: Entry[]) =>
        list.filter((entry) => entry.atMs !== lastAtMs).map((entry) => entry.id);
      expect(new Set(sure(taken))).toEqual(new Set(sure(expected)));
      // Nothing was taken out: every valid entry pops, in order, afterwards.
      const popped: number[] = [];
      for (let entry = heap.pop(); entry !== undefined; entry = heap.pop()) popped.push(entry.atMs);
      expect(popped).toEqual(
        entries
          .filter((entry) => entry.live)
          .map((entry) => entry.atMs)
          .sort((a, b) => a - b),
      );
    });
  }

  it("stops at the first entry `take` refuses", () => {
    const heap = new LazyHeap<Entry>(
      (a, b) => a.atMs < b.atMs,
      (entry) => entry.live,
    );
    for (const atMs of [5, 1, 9, 3, 7]) heap.push({ id: atMs, atMs, live: true });
    let asked = 0;
    const taken = heap.top(10, (entry) => {
      asked += 1;
      return entry.atMs <= 4;
    });
    expect(taken.map((entry) => entry.atMs)).toEqual([1, 3]);
    expect(asked).toBe(3);
  });
});
