import { describe, expect, it } from "vitest";
import { adaptWindow, initialWindow, type WindowLimits } from "../../src/core/load/dispatch-window";
import { type TenantDemand, windowAllowances } from "../../src/core/load/fair-share";

const demand = (tenantId: string, inFlight: number, due: number, weight = 1): TenantDemand => ({
  tenantId,
  inFlight,
  due,
  weight,
});

describe("windowAllowances", () => {
  it("lets a tenant alone use the whole window, and no more", () => {
    expect(windowAllowances(100, [demand("a", 0, 500)])).toEqual(new Map([["a", 100]]));
    expect(windowAllowances(100, [demand("a", 60, 500)])).toEqual(new Map([["a", 40]]));
  });

  it("gives a tenant under its share a slot even when another fills the window", () => {
    expect(windowAllowances(100, [demand("a", 100, 500), demand("b", 0, 1)])).toEqual(
      new Map([
        ["a", 0],
        ["b", 1],
      ]),
    );
  });

  it("splits a free window in proportion to the weights", () => {
    const allowed = windowAllowances(100, [demand("a", 0, 500, 3), demand("b", 0, 500, 1)]);
    expect(allowed.get("a")).toBe(75);
    expect(allowed.get("b")).toBe(25);
  });

  it("gives what one tenant does not need to the others (work conserving)", () => {
    const allowed = windowAllowances(100, [demand("a", 0, 500), demand("b", 0, 10)]);
    expect(allowed.get("b")).toBe(10);
    expect(allowed.get("a")).toBe(90);
  });

  it("holds every tenant to its share while all of them have work due", () => {
    const allowed = windowAllowances(90, [demand("a", 30, 500), demand("b", 0, 500), demand("c", 0, 500)]);
    expect(allowed).toEqual(
      new Map([
        ["a", 0],
        ["b", 30],
        ["c", 30],
      ]),
    );
  });
});

describe("adaptWindow", () => {
  const limits: WindowLimits = { minSize: 16, maxSize: 500, targetDelayMs: 300 };

  it("grows by the runs claimed while the queue is short and the window was the limit", () => {
    const state = initialWindow(limits);
    expect(adaptWindow(state, limits, { delayMs: 50, count: 50, wasFull: true }, 1_000).size).toBe(150);
    expect(adaptWindow(state, limits, { delayMs: 200, count: 50, wasFull: true }, 1_000).size).toBe(101);
    expect(adaptWindow(state, limits, { delayMs: 50, count: 50, wasFull: false }, 1_000).size).toBe(100);
  });

  it("shrinks by a quarter past the target, once per target delay, never under the minimum", () => {
    let state = adaptWindow(
      initialWindow(limits),
      limits,
      { delayMs: 2_000, count: 5, wasFull: true },
      1_000,
    );
    expect(state.size).toBe(75);
    expect(adaptWindow(state, limits, { delayMs: 2_000, count: 5, wasFull: true }, 1_100).size).toBe(75);
    for (let i = 0; i < 20; i += 1) {
      state = adaptWindow(state, limits, { delayMs: 2_000, count: 5, wasFull: true }, 2_000 + i * 1_000);
    }
    expect(state.size).toBe(16);
  });
});
