import { describe, expect, it } from "vitest";
import {
  flowControlSchema,
  flowLimitsOf,
  nextAskAtMs,
  PARALLELISM_RECHECK_MS,
  permitsAvailable,
} from "../../src/core/load/flow-control";
import { defaultTenantLimits, effectiveLimits } from "../../src/core/load/tenant-limits";

describe("permitsAvailable", () => {
  it.each([
    { limits: { rate: 10, periodMs: 1000, parallelism: 3 }, grants: 2, inFlight: 1, available: 2 },
    { limits: { rate: 10, periodMs: 1000, parallelism: null }, grants: 7, inFlight: 50, available: 3 },
    { limits: { rate: null, periodMs: 1000, parallelism: 5 }, grants: 999, inFlight: 5, available: 0 },
    { limits: { rate: 2, periodMs: 1000, parallelism: null }, grants: 3, inFlight: 0, available: 0 },
  ])(
    "rate $limits.rate, parallelism $limits.parallelism, $grants granted, $inFlight in flight: $available",
    ({ limits, grants, inFlight, available }) => {
      expect(permitsAvailable(limits, grants, inFlight)).toBe(available);
    },
  );
});

describe("nextAskAtMs", () => {
  const limits = { rate: 1, periodMs: 1000, parallelism: 1 };
  it("waits for the oldest grant to leave the window when the rate is full", () => {
    expect(nextAskAtMs(limits, { oldestGrantMs: 400, rateFull: true, parallelismFull: false }, 500)).toBe(
      1400,
    );
  });
  it("polls soon when only parallelism is full", () => {
    expect(nextAskAtMs(limits, { oldestGrantMs: 400, rateFull: false, parallelismFull: true }, 500)).toBe(
      500 + PARALLELISM_RECHECK_MS,
    );
  });
  it("takes the later of the two when both are full, and never asks before now + 1", () => {
    expect(nextAskAtMs(limits, { oldestGrantMs: 0, rateFull: true, parallelismFull: true }, 900)).toBe(
      900 + PARALLELISM_RECHECK_MS,
    );
    expect(nextAskAtMs(limits, { oldestGrantMs: null, rateFull: false, parallelismFull: false }, 900)).toBe(
      901,
    );
  });
});

describe("flowControlSchema", () => {
  it("defaults the period to 1 s and converts to gate limits", () => {
    const flow = flowControlSchema.parse({ key: "billing:eu", rate: 5 });
    expect(flow.period).toBe("1s");
    expect(flowLimitsOf(flow)).toEqual({ rate: 5, periodMs: 1000, parallelism: null });
    expect(flowLimitsOf(flowControlSchema.parse({ key: "k", parallelism: 2, period: "1m" }))).toEqual({
      rate: null,
      periodMs: 60_000,
      parallelism: 2,
    });
  });
});

describe("tenant limits", () => {
  it("read defaults from the vars, 0 meaning no limit, and keep the built-in default for junk", () => {
    const defaults = defaultTenantLimits({
      TENANT_MAX_ACTIVE_JOBS: "50",
      TENANT_MAX_CREATES_PER_SECOND: "0",
      TENANT_MAX_TRIGGERS_PER_SECOND: "ten",
    });
    expect(defaults).toEqual({
      active_jobs: 50,
      creates_per_second: null,
      triggers_per_second: null,
      concurrent_calls: null,
    });
  });
  it("take a tenant's overrides over the defaults: a stored 0 is no limit, NULL the default", () => {
    const defaults = {
      active_jobs: 100,
      creates_per_second: 10,
      triggers_per_second: null,
      concurrent_calls: 4,
    };
    expect(
      effectiveLimits(defaults, { active_jobs: 0, creates_per_second: null, triggers_per_second: 7 }),
    ).toEqual({
      active_jobs: null,
      creates_per_second: 10,
      triggers_per_second: 7,
      concurrent_calls: 4,
    });
  });
});
