import { describe, expect, it } from "vitest";
import { alertStateOf } from "../../src/core/alerts/alerts";

describe("alertStateOf", () => {
  it.each([
    { acknowledgedAtMs: null, resolvedAtMs: null, state: "open" },
    { acknowledgedAtMs: 1_000, resolvedAtMs: null, state: "acknowledged" },
    { acknowledgedAtMs: null, resolvedAtMs: 2_000, state: "resolved" },
    { acknowledgedAtMs: 1_000, resolvedAtMs: 2_000, state: "resolved" },
    // Time zero is a time, not "unset".
    { acknowledgedAtMs: 0, resolvedAtMs: null, state: "acknowledged" },
  ] as const)("is $state when acknowledged at $acknowledgedAtMs and resolved at $resolvedAtMs", (row) => {
    expect(alertStateOf(row)).toBe(row.state);
  });
});
