// The lease policy of runs in flight (src/core/runs/run-leases.ts).
import { describe, expect, it } from "vitest";
import {
  claimLeaseUntilMs,
  RESTART_LEASE_MS,
  RESTART_SEND_LEASE_MS,
  RUNNING_LEASE_GRACE_MS,
  RUNNING_LEASE_MS,
  renewedLeaseUntilMs,
  restartLeaseUntilMs,
} from "../../src/core/runs/run-leases";

describe("claimLeaseUntilMs", () => {
  it("is short whatever the timeout, and never past the timeout and its grace", () => {
    expect(claimLeaseUntilMs(1_000, 15 * 60_000)).toBe(1_000 + RUNNING_LEASE_MS);
    expect(claimLeaseUntilMs(1_000, 0)).toBe(1_000 + Math.min(RUNNING_LEASE_MS, RUNNING_LEASE_GRACE_MS));
  });
});

describe("renewedLeaseUntilMs", () => {
  it("gives a full lease from now, capped at the call's start plus the timeout and its grace", () => {
    const lease = { callStartedAtMs: 0, timeoutMs: 30_000, leaseUntilMs: RUNNING_LEASE_MS };
    expect(renewedLeaseUntilMs({ ...lease, nowMs: 3_000 })).toBe(3_000 + RUNNING_LEASE_MS);
    expect(renewedLeaseUntilMs({ ...lease, nowMs: 40_000 })).toBe(30_000 + RUNNING_LEASE_GRACE_MS);
  });

  it("has no cap while the run waits for a connection, however long past its timeout", () => {
    const waiting = { callStartedAtMs: null, timeoutMs: 5_000, leaseUntilMs: RUNNING_LEASE_MS };
    expect(renewedLeaseUntilMs({ ...waiting, nowMs: 60_000 })).toBe(60_000 + RUNNING_LEASE_MS);
  });

  it("never shortens the lease it renews", () => {
    expect(
      renewedLeaseUntilMs({ nowMs: 1_000, callStartedAtMs: 0, timeoutMs: 0, leaseUntilMs: 99_000 }),
    ).toBe(99_000);
  });
});

describe("restartLeaseUntilMs", () => {
  it("gives a claimed run RESTART_LEASE_MS from the restart, even when its written lease lapsed", () => {
    const restartMs = 100_000;
    for (const leaseUntilMs of [50_000, 500_000]) {
      expect(restartLeaseUntilMs({ state: "RUNNING", restartMs, fireAtMs: 0, leaseUntilMs })).toBe(
        restartMs + RESTART_LEASE_MS,
      );
    }
  });

  it("cuts a sent run's lease to RESTART_SEND_LEASE_MS after the restart or its instant, never lengthens it", () => {
    const restartMs = 100_000;
    expect(restartLeaseUntilMs({ state: "DISPATCHED", restartMs, fireAtMs: 0, leaseUntilMs: 500_000 })).toBe(
      restartMs + RESTART_SEND_LEASE_MS,
    );
    expect(
      restartLeaseUntilMs({
        state: "ACQUIRED",
        restartMs,
        fireAtMs: restartMs + 2_000,
        leaseUntilMs: 500_000,
      }),
    ).toBe(restartMs + 2_000 + RESTART_SEND_LEASE_MS);
    expect(restartLeaseUntilMs({ state: "DISPATCHED", restartMs, fireAtMs: 0, leaseUntilMs: 90_000 })).toBe(
      90_000,
    );
  });
});
