/** Every state a run can be in. The order is the happy path, then the side exits. */
export const RUN_STATES = [
  "SCHEDULED",
  "ACQUIRED",
  "DISPATCHED",
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "RETRYING",
  "DEAD_LETTERED",
  "SKIPPED",
  "CANCELLED",
] as const;

export type RunState = (typeof RUN_STATES)[number];

/**
 * The run state machine, as the one table every writer consults.
 * A state missing from a row's list cannot be reached from it.
 */
const TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  // The shard picks the due timer (ACQUIRED), or misfire/overlap skip it, or the job is deleted.
  SCHEDULED: ["ACQUIRED", "SKIPPED", "CANCELLED"],
  // Queue send succeeded (DISPATCHED) or failed or its lease expired (back to SCHEDULED, retried
  // next tick); a consumer's claim may land before the DISPATCHED bookkeeping (RUNNING); never
  // claimed after repeated dispatches (DEAD_LETTERED).
  ACQUIRED: ["DISPATCHED", "RUNNING", "SCHEDULED", "CANCELLED", "DEAD_LETTERED"],
  // Claimed by a consumer (RUNNING); lease expired unclaimed (back to the wheel); poison message.
  DISPATCHED: ["RUNNING", "SCHEDULED", "CANCELLED", "DEAD_LETTERED"],
  // One attempt ended. A lease expiry without an outcome is a FAILED attempt. Or the consumer
  // gave the claim back before calling (no connection of its own was free): back to the wheel,
  // the same attempt, as if it had never been sent.
  RUNNING: ["SUCCEEDED", "FAILED", "SCHEDULED"],
  // Attempts remain and the failure is retryable (RETRYING), else dead-letter; or manual retry.
  FAILED: ["RETRYING", "DEAD_LETTERED", "SCHEDULED"],
  // The backoff timer re-enters the wheel as a new SCHEDULED timer.
  RETRYING: ["SCHEDULED", "CANCELLED"],
  // Manual retry / redrive.
  DEAD_LETTERED: ["SCHEDULED"],
  SUCCEEDED: [],
  SKIPPED: [],
  CANCELLED: [],
};

/**
 * States in which the system does nothing more with a run by itself. DEAD_LETTERED is terminal
 * although an operator may redrive it (DEAD_LETTERED -> SCHEDULED).
 */
export const TERMINAL_STATES = [
  "SUCCEEDED",
  "DEAD_LETTERED",
  "SKIPPED",
  "CANCELLED",
] as const satisfies readonly RunState[];

/**
 * Every other state: the run is not finished. The overlap policy counts these as a job's runs in
 * progress (a FAILED run about to retry still overlaps the next instant). With TERMINAL_STATES
 * they partition RUN_STATES.
 */
export const UNFINISHED_STATES = [
  "SCHEDULED",
  "ACQUIRED",
  "DISPATCHED",
  "RUNNING",
  "FAILED",
  "RETRYING",
] as const satisfies readonly RunState[];

/**
 * Unfinished runs that still need the wheel: every unfinished state but RUNNING (a running
 * attempt ends through its consumer's report or its lease, not the wheel). Pausing or deleting a
 * job cancels these.
 */
export const PENDING_STATES = [
  "SCHEDULED",
  "ACQUIRED",
  "DISPATCHED",
  "RETRYING",
  "FAILED",
] as const satisfies readonly RunState[];

/**
 * States in which the shard holds a lease on the run (acquired, on the queue, or executing):
 * what the watchdog re-drives when the lease expires.
 */
export const IN_FLIGHT_STATES = ["ACQUIRED", "DISPATCHED", "RUNNING"] as const satisfies readonly RunState[];

/** Handed to the queue but not yet claimed by a consumer. */
export const UNCLAIMED_STATES = ["ACQUIRED", "DISPATCHED"] as const satisfies readonly RunState[];

/** Job status. COMPLETED: one-shot done, end_at or max_runs reached. */
export const JOB_STATUSES = ["ACTIVE", "PAUSED", "COMPLETED", "DELETED"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * A SQL `IN` list of state or status names, for the state sets above inside SQL strings. The
 * names are our own constants, never user input; quotes are doubled anyway.
 * @example `WHERE state IN ${sqlInList(TERMINAL_STATES)}` // WHERE state IN ('SUCCEEDED', 'DEAD_LETTERED', 'SKIPPED', 'CANCELLED')
 */
export function sqlInList(names: readonly (RunState | JobStatus)[]): string {
  if (names.length === 0) throw new Error("an SQL IN list needs at least one name");
  return `(${names.map((name) => `'${name.replaceAll("'", "''")}'`).join(", ")})`;
}

/** A transition the table does not allow: always a bug in the caller, never user input. */
export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError";
  constructor(
    readonly from: RunState,
    readonly to: RunState,
  ) {
    super(`illegal run transition ${from} -> ${to}`);
  }
}

/** @example canTransition("RUNNING", "SUCCEEDED") === true; canTransition("SUCCEEDED", "RUNNING") === false */
export function canTransition(from: RunState, to: RunState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states reachable from `from` in one step. @example nextStates("RETRYING") // ["SCHEDULED", "CANCELLED"] */
export function nextStates(from: RunState): readonly RunState[] {
  return TRANSITIONS[from];
}

/**
 * Returns `to` if the move is legal, else throws IllegalTransitionError.
 * @example const state = transition(run.state, "DISPATCHED");
 */
export function transition(from: RunState, to: RunState): RunState {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
  return to;
}

/** @example isTerminalState("SKIPPED") === true */
export function isTerminalState(state: RunState): boolean {
  return (TERMINAL_STATES as readonly RunState[]).includes(state);
}

/** Narrows a string read from storage. @example isRunState("RUNNING") === true */
export function isRunState(value: string): value is RunState {
  return (RUN_STATES as readonly string[]).includes(value);
}
