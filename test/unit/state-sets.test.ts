import { describe, expect, expectTypeOf, it } from "vitest";
import type { JobStatus as ClientJobStatus } from "../../src/client/types";
import { jobStatusSchema } from "../../src/core/jobs/job-spec";
import { runIdempotencyKey } from "../../src/core/runs/run-idempotency";
import {
  IN_FLIGHT_STATES,
  isTerminalState,
  JOB_STATUSES,
  type JobStatus,
  nextStates,
  PENDING_STATES,
  RUN_STATES,
  type RunState,
  sqlInList,
  TERMINAL_STATES,
  UNCLAIMED_STATES,
  UNFINISHED_STATES,
} from "../../src/core/runs/run-state";
import type { JobStatus as ProtocolJobStatus } from "../../src/shard/protocol";

const sorted = (states: readonly string[]) => [...states].sort();

describe("the run-state sets SQL is written from", () => {
  it("splits every state into terminal or unfinished, never both", () => {
    const terminal = new Set<RunState>(TERMINAL_STATES);
    expect(UNFINISHED_STATES.filter((state) => terminal.has(state))).toEqual([]);
    expect(sorted([...TERMINAL_STATES, ...UNFINISHED_STATES])).toEqual(sorted(RUN_STATES));
    expect(RUN_STATES.filter(isTerminalState)).toEqual(RUN_STATES.filter((state) => terminal.has(state)));
  });

  it("calls terminal exactly the states the system never leaves by itself", () => {
    // DEAD_LETTERED's only exit is an operator's redrive; every unfinished state has a way on.
    for (const state of RUN_STATES) {
      const exits = nextStates(state).filter((to) => !(state === "DEAD_LETTERED" && to === "SCHEDULED"));
      expect(exits.length === 0, state).toBe(isTerminalState(state));
    }
  });

  it("nests unclaimed in in-flight in unfinished, and pending is unfinished but not running", () => {
    const unfinished = new Set<RunState>(UNFINISHED_STATES);
    expect(IN_FLIGHT_STATES.every((state) => unfinished.has(state))).toBe(true);
    expect(sorted(UNCLAIMED_STATES)).toEqual(sorted(IN_FLIGHT_STATES.filter((state) => state !== "RUNNING")));
    expect(sorted(PENDING_STATES)).toEqual(sorted(UNFINISHED_STATES.filter((state) => state !== "RUNNING")));
  });
});

describe("sqlInList", () => {
  it("renders a quoted IN list in the set's order", () => {
    expect(sqlInList(UNCLAIMED_STATES)).toBe("('ACQUIRED', 'DISPATCHED')");
    expect(sqlInList(TERMINAL_STATES)).toBe("('SUCCEEDED', 'DEAD_LETTERED', 'SKIPPED', 'CANCELLED')");
  });

  it("refuses an empty set (every state set has members: an empty one is a bug)", () => {
    expect(() => sqlInList([])).toThrow("at least one name");
  });
});

describe("JobStatus", () => {
  it("is one list: the type everywhere and the zod enum come from JOB_STATUSES", () => {
    expect(JOB_STATUSES).toEqual(["ACTIVE", "PAUSED", "COMPLETED", "DELETED"]);
    expect(jobStatusSchema.options).toEqual([...JOB_STATUSES]);
    expect(jobStatusSchema.safeParse("active").success).toBe(false);
    expectTypeOf<ProtocolJobStatus>().toEqualTypeOf<JobStatus>();
    expectTypeOf<ClientJobStatus>().toEqualTypeOf<JobStatus>();
  });
});

describe("runIdempotencyKey", () => {
  it("is {job_id}:{scheduled_at} with the instant in RFC 3339 UTC milliseconds", () => {
    expect(runIdempotencyKey("job_01", Date.UTC(2026, 11, 1, 9, 30))).toBe("job_01:2026-12-01T09:30:00.000Z");
    expect(runIdempotencyKey("job_01", Date.UTC(2026, 11, 1, 9, 30, 0, 7))).toBe(
      "job_01:2026-12-01T09:30:00.007Z",
    );
  });
});
