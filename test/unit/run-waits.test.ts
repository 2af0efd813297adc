import { describe, expect, it } from "vitest";
import { flowWaitReason, latenessSplit, overlapWaitReason, waitingOf } from "../../src/core/load/run-waits";

const NOW_MS = Date.UTC(2027, 0, 1, 12);
const base = { kind: "schedule", nextAttemptAtMs: null, scheduledAtMs: NOW_MS - 5_000 };
const split = {
  kind: "schedule",
  misfire: false,
  heldMs: null,
  heldBy: null,
  createdAtMs: NOW_MS,
  scheduledAtMs: NOW_MS,
};

describe("waitingOf", () => {
  it("names the hold its last history reason records", () => {
    const reason = flowWaitReason("billing", { rate: 10, periodMs: 60_000, parallelism: 2 });
    expect(reason).toBe('flow control key "billing": waiting for a permit (10 starts per 1m, 2 in flight)');
    const events = [
      { state: "SCHEDULED", at_ms: NOW_MS - 5_000, reason: "due" },
      { state: "SCHEDULED", at_ms: NOW_MS - 4_000, reason },
    ];
    expect(waitingOf({ ...base, state: "SCHEDULED", events }, NOW_MS)).toEqual({
      cause: "flow_control",
      reason,
      sinceMs: NOW_MS - 4_000,
    });
    const tenant = flowWaitReason(null, { rate: 5, periodMs: 1_000, parallelism: null });
    expect(tenant).toBe("tenant limits: waiting for a permit (5 triggers per 1s)");
    expect(waitingOf({ ...base, state: "SCHEDULED", events: [{ reason: tenant }] }, NOW_MS)?.cause).toBe(
      "tenant_limits",
    );
    expect(
      waitingOf(
        { ...base, state: "SCHEDULED", events: [{ reason: overlapWaitReason("buffer_all") }] },
        NOW_MS,
      )?.cause,
    ).toBe("overlap");
    const deferred = "deferred by the consumer: no room for the tenant's calls";
    expect(waitingOf({ ...base, state: "SCHEDULED", events: [{ reason: deferred }] }, NOW_MS)?.cause).toBe(
      "tenant_share",
    );
  });

  it("says a retry waits for its backoff, a future run for its instant, and a handed-on run nothing", () => {
    const retry = waitingOf(
      {
        ...base,
        state: "RETRYING",
        nextAttemptAtMs: NOW_MS + 30_000,
        events: [{ reason: "target answered 500" }],
      },
      NOW_MS,
    );
    expect(retry).toMatchObject({
      cause: "retry_backoff",
      reason: "retry backoff: the next attempt goes out at 2027-01-01T12:00:30.000Z",
    });
    const future = {
      ...base,
      state: "SCHEDULED",
      scheduledAtMs: NOW_MS + 1_000,
      events: [{ reason: "due" }],
    };
    expect(waitingOf(future, NOW_MS)?.cause).toBe("instant");
    expect(waitingOf({ ...base, state: "SCHEDULED", events: [{ reason: "due" }] }, NOW_MS)?.cause).toBe(
      "dispatch",
    );
    for (const state of ["DISPATCHED", "RUNNING", "SUCCEEDED", "SKIPPED"])
      expect(
        waitingOf({ ...base, state, events: [{ reason: overlapWaitReason("buffer_one") }] }, NOW_MS),
      ).toBeNull();
  });
});

describe("latenessSplit", () => {
  it("charges a hold to the policy that held the run and the rest to the scheduler", () => {
    expect(latenessSplit({ ...split, latenessMs: 10_012, heldMs: 10_000, heldBy: "flow_control" })).toEqual({
      schedulerMs: 12,
      policyMs: 10_000,
      policy: "flow_control",
    });
    expect(latenessSplit({ ...split, latenessMs: 25 })).toEqual({
      schedulerMs: 25,
      policyMs: 0,
      policy: null,
    });
  });

  it("counts a backfill, a catch-up or a misfire as late on purpose until it was created", () => {
    const created = { ...split, scheduledAtMs: NOW_MS - 3_600_000, latenessMs: 3_600_020 };
    expect(latenessSplit({ ...created, kind: "backfill" })).toEqual({
      schedulerMs: 20,
      policyMs: 3_600_000,
      policy: "backfill",
    });
    expect(latenessSplit({ ...created, kind: "catch_up" }).policy).toBe("catch_up");
    expect(latenessSplit({ ...created, misfire: true }).policy).toBe("misfire");
    // A due run created late (the shard was busy) is the scheduler's lateness, all of it.
    expect(latenessSplit(created)).toEqual({ schedulerMs: 3_600_020, policyMs: 0, policy: null });
  });

  it("never counts more for the policy than the lateness itself", () => {
    expect(latenessSplit({ ...split, latenessMs: 50, heldMs: 80, heldBy: "overlap" })).toEqual({
      schedulerMs: 0,
      policyMs: 50,
      policy: "overlap",
    });
  });
});
