// The debounce rule with plain values: what one trigger does to its key's window.
import { describe, expect, it } from "vitest";
import {
  type DebounceWindow,
  debounceKeyOf,
  debounceRuleOf,
  debounceSchema,
  decideDebounce,
} from "../../src/core/runs/debounce";

const trailing = debounceRuleOf({ period: "30s", mode: "trailing", max_wait: "1m" });
const leading = debounceRuleOf({ period: "30s", mode: "leading" });
const window = (over: Partial<DebounceWindow> = {}): DebounceWindow => ({
  runId: "run_a",
  openedAtMs: 0,
  fireAtMs: 30_000,
  runWaiting: true,
  ...over,
});

describe("decideDebounce", () => {
  it("leading: a trigger inside the period folds, whatever its run did; after it, a new run now", () => {
    expect(decideDebounce(leading, null, 5)).toEqual({ action: "new", fireAtMs: 5 });
    const opened = window({ fireAtMs: 0, runWaiting: false });
    expect(decideDebounce(leading, opened, 29_999)).toEqual({ action: "fold", runId: "run_a", fireAtMs: 0 });
    expect(decideDebounce(leading, opened, 30_000)).toEqual({ action: "new", fireAtMs: 30_000 });
  });

  it("trailing: period after the last trigger, never past max_wait after the first", () => {
    expect(decideDebounce(trailing, null, 0)).toEqual({ action: "new", fireAtMs: 30_000 });
    expect(decideDebounce(trailing, window(), 10_000)).toEqual({
      action: "fold",
      runId: "run_a",
      fireAtMs: 40_000,
    });
    expect(decideDebounce(trailing, window({ fireAtMs: 55_000 }), 50_000)).toEqual({
      action: "fold",
      runId: "run_a",
      fireAtMs: 60_000,
    });
    // Without max_wait the run moves as long as triggers keep coming.
    const unbounded = debounceRuleOf({ period: "30s", mode: "trailing" });
    expect(decideDebounce(unbounded, window({ fireAtMs: 55_000 }), 50_000)).toMatchObject({
      fireAtMs: 80_000,
    });
  });

  it("trailing: a run already sent, or a fire time reached, takes no more triggers", () => {
    expect(decideDebounce(trailing, window({ runWaiting: false }), 10_000)).toEqual({
      action: "new",
      fireAtMs: 40_000,
    });
    expect(decideDebounce(trailing, window(), 30_000)).toEqual({ action: "new", fireAtMs: 60_000 });
  });

  it("a fold never moves a run earlier", () => {
    for (let nowMs = 0; nowMs < 30_000; nowMs += 997) {
      const decision = decideDebounce(trailing, window(), nowMs);
      expect(decision.action).toBe("fold");
      expect(decision.fireAtMs).toBeGreaterThanOrEqual(30_000);
      expect(decision.fireAtMs).toBeLessThanOrEqual(60_000);
    }
  });
});

describe("debounce spec", () => {
  it("the trigger's key, else the job's, else the default", () => {
    expect(debounceKeyOf({ period: "1s", mode: "leading", key: "job" }, "mine")).toBe("mine");
    expect(debounceKeyOf({ period: "1s", mode: "leading", key: "job" }, undefined)).toBe("job");
    expect(debounceKeyOf({ period: "1s", mode: "leading" }, undefined)).toBe("default");
  });

  it("refuses max_wait on leading and below the period", () => {
    const paths = (value: unknown) =>
      debounceSchema.safeParse(value).error?.issues.map((issue) => issue.path.join(".")) ?? [];
    expect(paths({ period: "30s", mode: "leading", max_wait: "1m" })).toEqual(["max_wait"]);
    expect(paths({ period: "30s", mode: "trailing", max_wait: "10s" })).toEqual(["max_wait"]);
    expect(paths({ period: "30s", mode: "trailing", max_wait: "30s" })).toEqual([]);
    expect(paths({ period: "25h", mode: "trailing" })).toEqual(["period"]);
  });
});
