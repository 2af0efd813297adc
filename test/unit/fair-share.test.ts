import { describe, expect, it } from "vitest";
import { fairOrder, roundRobin, sharePerTenant } from "../../src/core/fair-share";

describe("roundRobin", () => {
  it.each([
    { queues: [], out: [] },
    { queues: [["a1", "a2"]], out: ["a1", "a2"] },
    { queues: [["a1", "a2", "a3"], ["b1"], ["c1", "c2"]], out: ["a1", "b1", "c1", "a2", "c2", "a3"] },
    { queues: [[], ["b1"]], out: ["b1"] },
  ])("interleaves $queues", ({ queues, out }) => {
    expect(roundRobin(queues)).toEqual(out);
  });
});

describe("fairOrder", () => {
  it("puts a tenant with one item second, not after another's backlog", () => {
    const items = [...Array.from({ length: 5 }, (_, i) => `a${i}`), "b0"];
    expect(fairOrder(items, (item) => item[0] as string)).toEqual(["a0", "b0", "a1", "a2", "a3", "a4"]);
  });

  it("keeps a single tenant's order", () => {
    expect(fairOrder(["a2", "a1"], () => "a")).toEqual(["a2", "a1"]);
  });
});

describe("sharePerTenant", () => {
  it.each([
    [600, 4, 150],
    [600, 7, 86],
    [5, 10, 1],
    [600, 0, 600],
  ])("%i rows over %i tenants: %i each", (limit, tenants, share) => {
    expect(sharePerTenant(limit, tenants)).toBe(share);
  });
});
