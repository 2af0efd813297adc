import { describe, expect, it } from "vitest";
import {
  SLOW_TENANT_IN_FLIGHT_TOTAL,
  sendsAllowed,
  slowTenantInFlightCap,
} from "../../src/core/runs/slow-calls";

describe("a tenant with slow calls", () => {
  it("keeps its fair-share allowance while none of its calls is slow, however many are in flight", () => {
    expect(sendsAllowed({ allowance: 40, inFlight: 300, slowCalls: 0 }, 16)).toBe(40);
  });

  it("sends only what keeps its runs in flight within the cap once one call is slow", () => {
    expect(sendsAllowed({ allowance: 40, inFlight: 14, slowCalls: 1 }, 16)).toBe(2);
    expect(sendsAllowed({ allowance: 1, inFlight: 0, slowCalls: 1 }, 16)).toBe(1);
  });

  it("sends nothing while its slow calls alone fill the cap, or it is over it", () => {
    expect(sendsAllowed({ allowance: 40, inFlight: 16, slowCalls: 16 }, 16)).toBe(0);
    expect(sendsAllowed({ allowance: 40, inFlight: 500, slowCalls: 20 }, 16)).toBe(0);
  });

  it("is capped at a share of the total per shard, never under 4", () => {
    expect(slowTenantInFlightCap(16)).toBe(SLOW_TENANT_IN_FLIGHT_TOTAL / 16);
    expect(slowTenantInFlightCap(1)).toBe(SLOW_TENANT_IN_FLIGHT_TOTAL);
    expect(slowTenantInFlightCap(4_096)).toBe(4);
    // Across all shards a slow tenant holds about the total, never more than the floor allows.
    for (const shards of [1, 2, 16, 64, 256]) {
      expect(slowTenantInFlightCap(shards) * shards).toBeLessThanOrEqual(
        Math.max(SLOW_TENANT_IN_FLIGHT_TOTAL, 4 * shards),
      );
    }
  });
});
