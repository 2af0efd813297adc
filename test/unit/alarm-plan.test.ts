// The shard's alarm plan, with plain values: no Durable Object, no clock.
import { describe, expect, it } from "vitest";
import {
  ALARM_LOSS_THRESHOLD_MS,
  type AlarmInputs,
  alarmWasLost,
  BUSY_RETRY_MS,
  type DueTimes,
  FLUSH_DELAY_MS,
  IN_FLIGHT_WATCH_MS,
  nextAlarmMs,
  planAlarm,
} from "../../durable-objects/shard/wheel/alarm-plan";

const NOW_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
const NOTHING_DUE: DueTimes = {
  jobFireMs: null,
  aheadFireMs: null,
  runDueMs: null,
  inFlightFlushAtMs: null,
  flushUrgent: false,
  deadLetterRetryMs: null,
  inFlight: false,
};

function inputs(due: Partial<DueTimes>, rest: Partial<Omit<AlarmInputs, "due">> = {}): AlarmInputs {
  return {
    due: { ...NOTHING_DUE, ...due },
    nowMs: NOW_MS,
    busy: false,
    backpressureUntilMs: 0,
    flushNotBeforeMs: 0,
    armedAtMs: null,
    ...rest,
  };
}

describe("nextAlarmMs", () => {
  it.each([
    ["nothing is due", {}, {}, null],
    ["a job fires in a minute", { jobFireMs: NOW_MS + 60_000 }, {}, NOW_MS + 60_000],
    [
      "a run's lease expires before the next job",
      { jobFireMs: NOW_MS + 60_000, runDueMs: NOW_MS + 30_000 },
      {},
      NOW_MS + 30_000,
    ],
    [
      "runs in flight wake the shard within the watch, however far their leases are (a restart finds them soon)",
      { jobFireMs: NOW_MS + 60_000, runDueMs: NOW_MS + 30_000, inFlight: true },
      {},
      NOW_MS + IN_FLIGHT_WATCH_MS,
    ],
    [
      "runs in flight add no alarm when a timer rings within twice the watch anyway",
      { jobFireMs: NOW_MS + 2 * IN_FLIGHT_WATCH_MS, inFlight: true },
      {},
      NOW_MS + 2 * IN_FLIGHT_WATCH_MS,
    ],
    [
      "a timer already overdue rings at its time (the runtime runs it at once)",
      { jobFireMs: NOW_MS - 5 },
      {},
      NOW_MS - 5,
    ],
    ["history waits to be written", { flushUrgent: true }, {}, NOW_MS + FLUSH_DELAY_MS],
    [
      "the flush comes before a later timer",
      { jobFireMs: NOW_MS + 60_000, flushUrgent: true },
      {},
      NOW_MS + FLUSH_DELAY_MS,
    ],
    [
      "a dead letter whose send failed waits out its backoff",
      { deadLetterRetryMs: NOW_MS + 30_000 },
      {},
      NOW_MS + 30_000,
    ],
    [
      "a dead letter whose backoff has passed: after the flush delay",
      { deadLetterRetryMs: NOW_MS - 1 },
      {},
      NOW_MS + FLUSH_DELAY_MS,
    ],
    ["an in-flight run's history is not writable yet", { inFlightFlushAtMs: NOW_MS + 900 }, {}, NOW_MS + 900],
    [
      "an in-flight run's history is writable already: after the flush delay",
      { inFlightFlushAtMs: NOW_MS - 900 },
      {},
      NOW_MS + FLUSH_DELAY_MS,
    ],
    ["a busy pass comes back soon", { jobFireMs: NOW_MS + 60_000 }, { busy: true }, NOW_MS + BUSY_RETRY_MS],
    [
      "backpressure holds a due timer until the pause ends",
      { runDueMs: NOW_MS - 10 },
      { backpressureUntilMs: NOW_MS + 250 },
      NOW_MS + 250,
    ],
    [
      "backpressure does not hold a flush",
      { runDueMs: NOW_MS - 10, flushUrgent: true },
      { backpressureUntilMs: NOW_MS + 1_000 },
      NOW_MS + FLUSH_DELAY_MS,
    ],
    [
      "backpressure holds a send ahead until the pause ends",
      { aheadFireMs: NOW_MS - 10 },
      { backpressureUntilMs: NOW_MS + 1_000 },
      NOW_MS + 1_000,
    ],
    [
      "backpressure does not hold a job's instant",
      { jobFireMs: NOW_MS + 300, runDueMs: NOW_MS - 10, aheadFireMs: NOW_MS - 10 },
      { backpressureUntilMs: NOW_MS + 1_000 },
      NOW_MS + 300,
    ],
    [
      "a backlog's deferred write-behind holds a flush until then",
      { runDueMs: NOW_MS - 10, flushUrgent: true },
      { backpressureUntilMs: NOW_MS + 2_000, flushNotBeforeMs: NOW_MS + 800 },
      NOW_MS + 800,
    ],
    [
      "backpressure does not move a later timer",
      { runDueMs: NOW_MS + 5_000 },
      { backpressureUntilMs: NOW_MS + 250 },
      NOW_MS + 5_000,
    ],
  ] as const)("when %s", (_case, due, rest, expected) => {
    expect(nextAlarmMs(inputs(due, rest))).toBe(expected);
  });
});

describe("planAlarm", () => {
  it("clears an armed alarm once nothing is due", () => {
    expect(planAlarm(inputs({}, { armedAtMs: NOW_MS + 1_000 }))).toEqual({ action: "clear" });
  });

  it("does nothing when nothing is due and no alarm is armed", () => {
    expect(planAlarm(inputs({}))).toEqual({ action: "keep" });
  });

  it("sets the alarm for the earliest thing due", () => {
    expect(planAlarm(inputs({ jobFireMs: NOW_MS + 60_000 }))).toEqual({
      action: "set",
      atMs: NOW_MS + 60_000,
    });
  });

  it("keeps an alarm already set for that instant", () => {
    const due = { jobFireMs: NOW_MS + 60_000 };
    expect(planAlarm(inputs(due, { armedAtMs: NOW_MS + 60_000 }))).toEqual({ action: "keep" });
  });

  it("keeps an earlier alarm still in the future (it re-arms for the rest when it runs)", () => {
    const due = { jobFireMs: NOW_MS + 60_000 };
    expect(planAlarm(inputs(due, { armedAtMs: NOW_MS + 10_000 }))).toEqual({ action: "keep" });
  });

  it("moves a later alarm earlier", () => {
    const due = { jobFireMs: NOW_MS + 10_000 };
    expect(planAlarm(inputs(due, { armedAtMs: NOW_MS + 60_000 }))).toEqual({
      action: "set",
      atMs: NOW_MS + 10_000,
    });
  });

  it("replaces an earlier alarm whose time has passed (it may never have rung)", () => {
    const due = { jobFireMs: NOW_MS + 60_000 };
    expect(planAlarm(inputs(due, { armedAtMs: NOW_MS - 1 }))).toEqual({
      action: "set",
      atMs: NOW_MS + 60_000,
    });
  });
});

describe("alarmWasLost", () => {
  it.each([
    ["no alarm, a timer in the future", null, NOW_MS + 60_000, true],
    ["no alarm, a timer overdue beyond the threshold", null, NOW_MS - ALARM_LOSS_THRESHOLD_MS - 1, true],
    ["no alarm, a timer just due (the alarm is about to run)", null, NOW_MS - 1_000, false],
    ["no alarm, no timer", null, null, false],
    ["an alarm is armed", NOW_MS + 1_000, NOW_MS + 60_000, false],
    ["an alarm just overdue (about to run)", NOW_MS - 1_000, NOW_MS - 1_000, false],
    [
      "an alarm overdue beyond the threshold (it never rang)",
      NOW_MS - ALARM_LOSS_THRESHOLD_MS - 1,
      NOW_MS - 60_000,
      true,
    ],
    ["an alarm overdue beyond the threshold, nothing due", NOW_MS - ALARM_LOSS_THRESHOLD_MS - 1, null, true],
  ] as const)("%s: %s", (_case, alarmAtMs, timerMs, expected) => {
    expect(alarmWasLost(alarmAtMs, timerMs, NOW_MS)).toBe(expected);
  });
});
