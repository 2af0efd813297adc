import { describe, expect, expectTypeOf, it } from "vitest";
import { EdgecronError, isErrorCode, toProblem } from "../../src/core/common/errors";
import { fnv1a32, hash32 } from "../../src/core/common/stable-hash";
import type { BackoffPolicy, MisfirePolicy, OverlapPolicy } from "../../src/core/jobs/job-spec";
import { shardForJob } from "../../src/core/load/placement";
import { backoffBaseMs, backoffDelayMs, retryDelayMs } from "../../src/core/runs/backoff";
import { classifyTargetError, classifyTargetResponse, parseRetryAfterMs } from "../../src/core/runs/outcome";
import { overlapDecision } from "../../src/core/runs/overlap";
import {
  canTransition,
  IllegalTransitionError,
  IN_FLIGHT_STATES,
  isRunState,
  isTerminalState,
  JOB_STATUSES,
  type JobStatus,
  RUN_STATES,
  type RunState,
  TERMINAL_STATES,
  transition,
} from "../../src/core/runs/run-state";
import { fireJitterMs } from "../../src/core/schedules/jitter";
import { misfireDecision, splitLateInstants } from "../../src/core/schedules/misfire";
import { TargetRefusedError } from "../../src/core/targets/ssrf";
import type { JobStatus as ProtocolJobStatus } from "../../src/shard/protocol";

const SECOND = 1_000;
const HOUR = 3_600_000;
const policy = (jitter: BackoffPolicy["jitter"], extra: Partial<BackoffPolicy> = {}): BackoffPolicy => ({
  initial: "30s",
  max: "1h",
  multiplier: 2,
  jitter,
  ...extra,
});
const ALMOST_ONE = 1 - 1e-12;

describe("backoffBaseMs", () => {
  it.each([
    [1, 30 * SECOND],
    [2, 60 * SECOND],
    [3, 120 * SECOND],
    [7, 1_920 * SECOND],
    [8, HOUR], // 3,840 s would pass the 1 h cap
    [100, HOUR],
    [1_000_000, HOUR],
    [Number.MAX_SAFE_INTEGER, HOUR],
  ])("attempt %d waits %d ms before jitter", (attempt, expectedMs) => {
    expect(backoffBaseMs(attempt, policy("none"))).toBe(expectedMs);
  });

  it.each([
    ["multiplier 1 keeps the initial delay", policy("none", { multiplier: 1 }), 50, 30 * SECOND],
    ["initial 0 never waits", policy("none", { initial: 0 }), 9, 0],
    ["initial above max is capped", policy("none", { initial: "2h" }), 1, HOUR],
    ["integer ms durations work", policy("none", { initial: 250, max: 1_000 }), 3, 1_000],
    [
      "multiplier 10 caps without overflow",
      policy("none", { multiplier: 10, max: "366d" }),
      5_000,
      366 * 24 * HOUR,
    ],
    [
      "fractional multiplier rounds to whole ms",
      policy("none", { initial: 1_000, multiplier: 1.5 }),
      3,
      2_250,
    ],
  ])("%s", (_name, backoff, attempt, expectedMs) => {
    expect(backoffBaseMs(attempt, backoff)).toBe(expectedMs);
  });

  it.each([0, -1, 1.5, Number.NaN])("rejects attempt %d as a bug", (attempt) => {
    expect(() => backoffBaseMs(attempt, policy("none"))).toThrow(RangeError);
  });
});

describe("backoffDelayMs", () => {
  const attempts = [1, 2, 3, 8, 64, 1_000_000, Number.MAX_SAFE_INTEGER];
  const cases = (["full", "equal", "none"] as const).flatMap((jitter) =>
    attempts.flatMap((attempt) => [0, 0.5, ALMOST_ONE].map((random) => ({ jitter, attempt, random }))),
  );

  it.each(cases)(
    "$jitter jitter, attempt $attempt, random $random stays in bounds",
    ({ jitter, attempt, random }) => {
      const baseMs = backoffBaseMs(attempt, policy(jitter));
      const delayMs = backoffDelayMs(attempt, policy(jitter), () => random);
      expect(Number.isInteger(delayMs)).toBe(true);
      expect(delayMs).toBeLessThanOrEqual(HOUR);
      if (jitter === "none") expect(delayMs).toBe(baseMs);
      if (jitter === "full") {
        expect(delayMs).toBeGreaterThanOrEqual(0);
        expect(delayMs).toBeLessThanOrEqual(baseMs);
        if (random === 0) expect(delayMs).toBe(0);
        if (random === ALMOST_ONE) expect(delayMs).toBeGreaterThanOrEqual(baseMs - 1);
      }
      if (jitter === "equal") {
        expect(delayMs).toBeGreaterThanOrEqual(baseMs / 2);
        expect(delayMs).toBeLessThanOrEqual(baseMs);
        if (random === 0) expect(delayMs).toBe(baseMs / 2);
      }
    },
  );

  it.each([1, 1.5, Number.NaN, -3])("clamps a random source that returns %d", (value) => {
    for (const jitter of ["full", "equal"] as const) {
      const delayMs = backoffDelayMs(8, policy(jitter), () => value);
      expect(delayMs).toBeGreaterThanOrEqual(0);
      expect(delayMs).toBeLessThanOrEqual(HOUR);
    }
  });
});

describe("retryDelayMs", () => {
  it.each([
    ["no Retry-After: the backoff", 2, null, 60 * SECOND],
    ["Retry-After longer than the backoff wins", 1, 120 * SECOND, 120 * SECOND],
    ["Retry-After shorter than the backoff does not shorten it", 3, 5 * SECOND, 120 * SECOND],
    ["Retry-After beyond max is capped at max", 1, 7 * 24 * HOUR, HOUR],
    ["Retry-After 0 keeps the backoff", 1, 0, 30 * SECOND],
    ["a non-finite Retry-After is ignored", 1, Number.POSITIVE_INFINITY, 30 * SECOND],
  ])("%s", (_name, attempt, retryAfterMs, expectedMs) => {
    expect(retryDelayMs(attempt, policy("none"), () => 0.5, retryAfterMs)).toBe(expectedMs);
  });
});

describe("misfire", () => {
  const misfire = (kind: MisfirePolicy["policy"], maxCatchUp = 3): MisfirePolicy => ({
    policy: kind,
    grace: "60s",
    max_catch_up: maxCatchUp,
  });
  const missed = [100, 200, 300, 400, 500];

  it.each([
    ["fire_now fires the most recent instant once", misfire("fire_now"), missed, [500], [100, 200, 300, 400]],
    ["skip fires nothing", misfire("skip"), missed, [], missed],
    ["catch_up fires the newest max_catch_up", misfire("catch_up", 3), missed, [300, 400, 500], [100, 200]],
    ["catch_up under the cap fires them all", misfire("catch_up", 10), missed, missed, []],
    ["catch_up cap 1 behaves like fire_now", misfire("catch_up", 1), missed, [500], [100, 200, 300, 400]],
    ["nothing missed, nothing to do", misfire("fire_now"), [], [], []],
    ["unsorted input is sorted", misfire("catch_up", 2), [500, 100, 300], [300, 500], [100]],
  ])("%s", (_name, misfirePolicy, instants, fire, skip) => {
    expect(misfireDecision({ missedInstantsMs: instants, policy: misfirePolicy })).toEqual({ fire, skip });
  });

  it("splits late-but-within-grace instants from missed ones, grace inclusive", () => {
    expect(splitLateInstants([1_000, 40_000, 50_000, 99_000, 120_000], 100_000, 50_000)).toEqual({
      onTime: [50_000, 99_000, 120_000],
      missed: [1_000, 40_000],
    });
  });
});

describe("overlapDecision", () => {
  const table: [OverlapPolicy, number, number, "run" | "skip" | "buffer"][] = [
    ["allow", 0, 0, "run"],
    ["allow", 5, 0, "run"],
    ["skip", 0, 0, "run"],
    ["skip", 1, 0, "skip"],
    ["buffer_one", 0, 0, "run"],
    ["buffer_one", 1, 0, "buffer"],
    ["buffer_one", 1, 1, "skip"],
    ["buffer_one", 0, 1, "skip"], // a buffered run waits to be promoted: it goes first
    ["buffer_all", 0, 0, "run"],
    ["buffer_all", 1, 0, "buffer"],
    ["buffer_all", 1, 99, "buffer"],
    ["buffer_all", 1, 100, "skip"],
    ["buffer_all", 0, 3, "buffer"],
  ];
  it.each(table)(
    "%s with %d in flight and %d buffered -> %s",
    (policy, inFlightCount, bufferedCount, expected) => {
      expect(overlapDecision({ policy, inFlightCount, bufferedCount, maxBuffered: 100 })).toBe(expected);
    },
  );
});

describe("run state machine", () => {
  // Written out independently of the implementation's table: every legal move.
  const legal: [RunState, RunState][] = [
    ["SCHEDULED", "ACQUIRED"],
    ["SCHEDULED", "SKIPPED"],
    ["SCHEDULED", "CANCELLED"],
    ["ACQUIRED", "DISPATCHED"],
    ["ACQUIRED", "SCHEDULED"],
    ["ACQUIRED", "CANCELLED"],
    ["ACQUIRED", "RUNNING"],
    ["ACQUIRED", "DEAD_LETTERED"],
    ["DISPATCHED", "RUNNING"],
    ["DISPATCHED", "SCHEDULED"],
    ["DISPATCHED", "CANCELLED"],
    ["DISPATCHED", "DEAD_LETTERED"],
    ["RUNNING", "SUCCEEDED"],
    ["RUNNING", "FAILED"],
    ["RUNNING", "SCHEDULED"],
    ["FAILED", "RETRYING"],
    ["FAILED", "DEAD_LETTERED"],
    ["FAILED", "SCHEDULED"],
    ["RETRYING", "SCHEDULED"],
    ["RETRYING", "CANCELLED"],
    ["DEAD_LETTERED", "SCHEDULED"],
  ];
  const legalKeys = new Set(legal.map(([from, to]) => `${from}>${to}`));
  const illegal = RUN_STATES.flatMap((from) => RUN_STATES.map((to) => [from, to] as const)).filter(
    ([from, to]) => !legalKeys.has(`${from}>${to}`),
  );

  it.each(legal)("allows %s -> %s", (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(transition(from, to)).toBe(to);
  });

  it(`refuses the other ${illegal.length} pairs, with an IllegalTransitionError`, () => {
    for (const [from, to] of illegal) {
      expect(canTransition(from, to), `${from} -> ${to}`).toBe(false);
      expect(() => transition(from, to)).toThrow(IllegalTransitionError);
    }
    expect(() => transition("SUCCEEDED", "RUNNING")).toThrow("illegal run transition SUCCEEDED -> RUNNING");
  });

  it("lists terminal, in-flight and job states", () => {
    expect(TERMINAL_STATES).toEqual(["SUCCEEDED", "DEAD_LETTERED", "SKIPPED", "CANCELLED"]);
    expect(IN_FLIGHT_STATES).toEqual(["ACQUIRED", "DISPATCHED", "RUNNING"]);
    expect(RUN_STATES.filter(isTerminalState)).toHaveLength(4);
    expect(isRunState("RUNNING")).toBe(true);
    expect(isRunState("running")).toBe(false);
    expect(JOB_STATUSES).toEqual(["ACTIVE", "PAUSED", "COMPLETED", "DELETED"]);
    expectTypeOf<JobStatus>().toEqualTypeOf<ProtocolJobStatus>();
  });

  it("has no exits from SUCCEEDED, SKIPPED or CANCELLED", () => {
    for (const from of ["SUCCEEDED", "SKIPPED", "CANCELLED"] as const) {
      expect(RUN_STATES.some((to) => canTransition(from, to))).toBe(false);
    }
  });
});

describe("hash32, fireJitterMs and shardForJob", () => {
  it("uses standard FNV-1a underneath", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
    // Non-ASCII goes through UTF-8: "é" is the bytes c3 a9.
    expect(fnv1a32("é")).toBe(Math.imul(Math.imul(0x811c9dc5 ^ 0xc3, 0x01000193) ^ 0xa9, 0x01000193) >>> 0);
  });

  it("is deterministic and 32-bit unsigned", () => {
    expect(hash32("job_1")).toBe(hash32("job_1"));
    expect(hash32("job_1")).not.toBe(hash32("job_2"));
    for (const text of ["", "a", "ü€😀", "x".repeat(10_000)]) {
      const value = hash32(text);
      expect(Number.isInteger(value) && value >= 0 && value < 2 ** 32).toBe(true);
    }
  });

  it("gives each (job, instant) a fixed offset in [0, jitterMs)", () => {
    const offsets = new Set<number>();
    for (let i = 0; i < 1_000; i++) {
      const scheduledAtMs = Date.UTC(2026, 11, 1) + i * 60_000;
      const offsetMs = fireJitterMs("job_42", scheduledAtMs, 30_000);
      expect(offsetMs).toBe(fireJitterMs("job_42", scheduledAtMs, 30_000));
      expect(Number.isInteger(offsetMs) && offsetMs >= 0 && offsetMs < 30_000).toBe(true);
      offsets.add(offsetMs);
    }
    expect(offsets.size).toBeGreaterThan(950); // spread, not clustered
    expect(fireJitterMs("job_42", 0, 0)).toBe(0);
    expect(fireJitterMs("job_42", 0, 1)).toBe(0);
  });

  it.each([
    ["sequential ids", (i: number) => `job_${i}`],
    [
      "uuid-like ids",
      (i: number) => `${(hash32(`seed${i}`) >>> 0).toString(16).padStart(8, "0")}-4a1b-9c2d-${i}`,
    ],
  ])("spreads 10,000 %s roughly uniformly over 16 shards", (_name, makeId) => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const shard = shardForJob(makeId(i), 16);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    const expected = 10_000 / 16;
    const chiSquare = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(37.7); // 15 degrees of freedom, p = 0.001
    for (const count of counts) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.15);
  });

  it("rejects a shard count that is not a positive integer", () => {
    expect(() => shardForJob("job_1", 0)).toThrow(RangeError);
    expect(shardForJob("job_1", 1)).toBe(0);
  });
});

describe("classifyTargetResponse", () => {
  const nowMs = Date.UTC(2026, 10, 29, 8, 0, 0);
  const table: [number, number[], TargetOutcomeKind][] = [
    [200, [], "success"],
    [201, [], "success"],
    [204, [], "success"],
    [299, [], "success"],
    [301, [], "permanent"],
    [302, [], "permanent"],
    [304, [], "permanent"],
    [307, [], "permanent"],
    [308, [], "permanent"],
    [400, [], "permanent"],
    [401, [], "permanent"],
    [403, [], "permanent"],
    [404, [], "permanent"],
    [404, [404], "retryable"],
    [409, [404], "permanent"],
    [422, [], "permanent"],
    [425, [425], "retryable"],
    [408, [], "retryable"],
    [429, [], "retryable"],
    [500, [], "retryable"],
    [502, [], "retryable"],
    [503, [], "retryable"],
    [504, [], "retryable"],
    [599, [], "retryable"],
    [101, [], "permanent"],
  ];
  it.each(table)("status %d (retry_on_status %j) is %s", (status, retryOnStatus, kind) => {
    const outcome = classifyTargetResponse({
      status,
      retryAfterHeader: null,
      retryOnStatus,
      durationMs: 7,
      nowMs,
    });
    expect(outcome.kind).toBe(kind);
    expect(outcome.status).toBe(status);
    expect(outcome.durationMs).toBe(7);
  });

  it("says a redirect is not followed", () => {
    const outcome = classifyTargetResponse({
      status: 302,
      retryAfterHeader: null,
      retryOnStatus: [],
      durationMs: 1,
      nowMs,
    });
    expect(outcome.kind === "permanent" && outcome.error).toMatch(/redirects are not followed/);
  });

  it.each([
    ["120", 120_000],
    [" 5 ", 5_000],
    ["0", 0],
    ["Sun, 29 Nov 2026 08:01:30 GMT", 90_000],
    ["Sunday, 29-Nov-26 08:00:10 GMT", 10_000],
    ["Sun Nov 29 08:00:02 2026", 2_000],
    ["Sun, 29 Nov 2026 07:00:00 GMT", 0], // in the past: retry as soon as the backoff allows
    ["-5", null],
    ["1.5", null],
    ["soon", null],
    ["2026-11-29T08:01:00Z", null], // not an HTTP date
    [null, null],
  ])("reads Retry-After %j as %j ms", (header, expectedMs) => {
    expect(parseRetryAfterMs(header, nowMs)).toBe(expectedMs);
    const outcome = classifyTargetResponse({
      status: 503,
      retryAfterHeader: header,
      retryOnStatus: [],
      durationMs: 0,
      nowMs,
    });
    expect(outcome.kind === "retryable" && outcome.retryAfterMs).toBe(expectedMs);
  });
});

type TargetOutcomeKind = "success" | "retryable" | "permanent";

describe("classifyTargetError", () => {
  it.each([
    ["a timeout", new DOMException("The operation timed out.", "TimeoutError"), "retryable", /timeout/],
    ["an abort", new DOMException("aborted", "AbortError"), "retryable", /timeout/],
    [
      "a network error",
      new TypeError("Network connection lost."),
      "retryable",
      /network error.*connection lost/,
    ],
    ["a thrown string", "boom", "retryable", /network error.*boom/],
    [
      "an SSRF refusal",
      new TargetRefusedError("target resolves to a private address"),
      "permanent",
      /private/,
    ],
  ])("classifies %s", (_name, error, kind, message) => {
    const outcome = classifyTargetError(error, 30_000);
    expect(outcome.kind).toBe(kind);
    expect(outcome.status).toBeNull();
    expect(outcome.error).toMatch(message);
  });
});

describe("EdgecronError", () => {
  it("carries a stable code, its status and field errors, and maps to a problem", () => {
    const errors = [{ path: "schedule.expr", message: "is not a cron expression" }];
    const error = new EdgecronError("validation_failed", "1 field is invalid", { errors });
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.status, error.detail, error.message]).toEqual([
      "validation_failed",
      400,
      "1 field is invalid",
      "1 field is invalid",
    ]);
    expect(toProblem(error, "/v1/jobs")).toEqual({
      type: "urn:edgecron:problem:validation_failed",
      title: "Bad Request",
      status: 400,
      detail: "1 field is invalid",
      code: "validation_failed",
      instance: "/v1/jobs",
      errors,
    });
    expect(toProblem(new EdgecronError("job_not_found", "no job j_1"))).not.toHaveProperty("errors");
  });

  it.each([
    ["job_not_found", 404],
    ["version_conflict", 409],
    ["idempotency_conflict", 422],
    ["payload_too_large", 413],
    ["unsupported_media_type", 415],
    ["shard_unavailable", 503],
    ["job_not_synced", 503],
  ] as const)("%s is %d", (code, status) => {
    expect(new EdgecronError(code, "x").status).toBe(status);
    expect(isErrorCode(code)).toBe(true);
  });
});
