// When a shard's alarm should ring, decided from plain values: no storage, no clock, no
// Cloudflare imports, so every case is a unit test (test/unit/alarm-plan.test.ts).

/** How soon the write-behind takes a change (history into the shard's records, statuses to D1). */
export const FLUSH_DELAY_MS = 250;
/** A pass that left work behind (bounded batches) comes back this soon. */
export const BUSY_RETRY_MS = 50;
/** An alarm overdue by more than this, with none armed, was lost (not merely about to run). */
export const ALARM_LOSS_THRESHOLD_MS = 5_000;
/**
 * While runs are in flight the alarm rings at least this often. A shard learns it restarted only
 * when something wakes it: a crash must not leave its lost runs waiting for a far-off timer (the
 * restart then cuts their leases short, ../runs/leases.ts).
 */
export const IN_FLIGHT_WATCH_MS = 5_000;

/** What the shard's tables say is due next (read by ./due-times.ts). */
export interface DueTimes {
  /** The earliest instant of an active job: it fires then, whatever the dispatch window holds. */
  jobFireMs: number | null;
  /**
   * The earliest instant that may be sent ahead of its time (the dispatch lead): held, as due runs
   * are, while the dispatch window is full.
   */
  aheadFireMs: number | null;
  /** The earliest run timer: a dispatch, a retry, or an expiring dispatch or running lease. */
  runDueMs: number | null;
  /** When the oldest unwritten change of an in-flight run may be written to D1. */
  inFlightFlushAtMs: number | null;
  /** History that should reach D1 soon: settled runs, dead letters, job status changes. */
  flushUrgent: boolean;
  /** The earliest retry of a dead letter whose send failed (../runs/dead-letter-sends.ts backs it off). */
  deadLetterRetryMs: number | null;
  /** Runs are sent and unreported, or running. */
  inFlight: boolean;
}

export interface AlarmInputs {
  due: DueTimes;
  nowMs: number;
  /** The last pass left work behind (its batches were full): come back almost at once. */
  busy: boolean;
  /** While the dispatch window is full, run timers and sends ahead wait until then (0: no backpressure). */
  backpressureUntilMs: number;
  /** While a backlog defers the write-behind, flushes wait until then (0: not deferred). */
  flushNotBeforeMs: number;
  /** The alarm this instance last set (null: none). */
  armedAtMs: number | null;
}

export type AlarmPlan = { action: "keep" } | { action: "clear" } | { action: "set"; atMs: number };

/** The earliest timer (a job's instant, a send ahead, a run's), null when nothing is scheduled. */
export function earliestTimerMs(due: DueTimes): number | null {
  return minOf([due.jobFireMs, due.aheadFireMs, due.runDueMs]);
}

/**
 * When the alarm should ring: at the earliest timer (a run's or a send ahead not before the
 * backpressure pause; a job's instant at its time), the next history flush (not before a backlog's
 * deferral), or soon when the last pass was busy; null when nothing is due.
 *
 * A full window's pause holds only what the window holds back. A pass that rang on every pause
 * (each 250 ms, per shard) sent nothing in more than half of a burst's 4,100 passes; the claims
 * and reports that free room end the pause at once.
 */
export function nextAlarmMs(inputs: AlarmInputs): number | null {
  const { due, nowMs } = inputs;
  const timerMs = earliestTimerMs(due);
  const heldMs = minOf([due.runDueMs, due.aheadFireMs]);
  const flushAtMs = minOf([
    due.flushUrgent ? nowMs + FLUSH_DELAY_MS : null,
    // An in-flight run's history is written once it has sat unchanged for a while.
    due.inFlightFlushAtMs === null ? null : Math.max(nowMs + FLUSH_DELAY_MS, due.inFlightFlushAtMs),
    // A failing queue must not wake the shard every FLUSH_DELAY_MS: wait out the backoff.
    due.deadLetterRetryMs === null ? null : Math.max(nowMs + FLUSH_DELAY_MS, due.deadLetterRetryMs),
  ]);
  return minOf([
    due.jobFireMs,
    heldMs === null ? null : Math.max(heldMs, inputs.backpressureUntilMs),
    flushAtMs === null ? null : Math.max(flushAtMs, inputs.flushNotBeforeMs),
    inputs.busy ? nowMs + BUSY_RETRY_MS : null,
    // Only when nothing else rings soon: a shard whose timers ring every few seconds already
    // notices a restart that soon, and each extra alarm is a row written.
    due.inFlight && (timerMs === null || timerMs > nowMs + 2 * IN_FLIGHT_WATCH_MS)
      ? nowMs + IN_FLIGHT_WATCH_MS
      : null,
  ]);
}

/**
 * What to do with the alarm. An alarm already set earlier (and still in the future) stays: it
 * re-arms for the rest when it runs, and each setAlarm is a storage write.
 */
export function planAlarm(inputs: AlarmInputs): AlarmPlan {
  const atMs = nextAlarmMs(inputs);
  const { armedAtMs, nowMs } = inputs;
  if (atMs === null) return armedAtMs === null ? { action: "keep" } : { action: "clear" };
  if (armedAtMs === atMs) return { action: "keep" };
  if (armedAtMs !== null && armedAtMs <= atMs && armedAtMs > nowMs) return { action: "keep" };
  return { action: "set", atMs };
}

/**
 * Whether a shard's alarm was lost, from what storage says while no alarm of it runs. A due alarm
 * waiting to run reads as none, or as just overdue: only a timer in the future with no alarm set,
 * or an alarm or timer overdue by more than a few seconds, proves the loss (a pending flush proves
 * nothing). An alarm storage still holds long past its instant never rang: a process killed while
 * the alarm was being set can leave storage and the runtime's alarm scheduler disagreeing, and
 * only setting it again registers it.
 */
export function alarmWasLost(alarmAtMs: number | null, timerMs: number | null, nowMs: number): boolean {
  if (alarmAtMs !== null) return alarmAtMs < nowMs - ALARM_LOSS_THRESHOLD_MS;
  return timerMs !== null && (timerMs > nowMs || timerMs < nowMs - ALARM_LOSS_THRESHOLD_MS);
}

function minOf(values: (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? null : Math.min(...present);
}
