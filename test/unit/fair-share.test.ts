import { describe, expect, it } from "vitest";
import { fairOrder, roundRobin, shareLeft, sharePerTenant } from "../../src/core/load/fair-share";

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

describe("shareLeft", () => {
  const flooder = { tenantId: "a", inFlight: 10, due: 90, weight: 1 };

  it("gives a tenant with nothing here the share it would have if it joined, while another fills the window", () => {
    const left = shareLeft(10, [flooder], new Map(), () => 1);
    expect(left("b")).toBe(5);
    expect(left("a")).toBe(0);
  });

  it("counts the tenant's runs in flight and this pass's sends against its share", () => {
    const victim = { tenantId: "b", inFlight: 2, due: 0, weight: 1 };
    expect(shareLeft(10, [flooder, victim], new Map([["b", 1]]), () => 1)("b")).toBe(2);
    expect(shareLeft(10, [flooder, victim], new Map([["b", 5]]), () => 1)("b")).toBe(0);
  });

  it("sizes the share by weight, and never under one slot", () => {
    expect(shareLeft(10, [flooder], new Map(), (tenantId) => (tenantId === "b" ? 4 : 1))("b")).toBe(8);
    expect(shareLeft(2, [flooder, { ...flooder, tenantId: "c" }], new Map(), () => 1)("b")).toBe(1);
  });

  it("leaves an active tenant its share when the window has room", () => {
    expect(shareLeft(100, [{ tenantId: "b", inFlight: 1, due: 0, weight: 1 }], new Map(), () => 1)("b")).toBe(
      99,
    );
  });
});
