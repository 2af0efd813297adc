// Every change of a run goes through here: a state change (moveRun) checks the transition table
// and appends the event with its reason, so a run's history holds every state it passed through;
// noteRun appends an event without a state change; patchRun changes columns only. A run that
// reaches a final state leaves memory into its history page at the next commit (settled): a
// success, a skip, a cancel at once; a dead letter once it has been sent (../runs/dead-letter-sends.ts).
import { type RunState, transition } from "../../../src/core/runs/run-state";
import type { NewRun, Run, RunEvent } from "../records/run";
import { createdRun } from "../records/run";
import type { ShardState } from "./shard-state";

/** Columns a change may set besides the state itself. */
export type RunPatch = Partial<
  Pick<
    Run,
    | "attempt"
    | "max_attempts"
    | "fence"
    | "job_version"
    | "due_at_ms"
    | "waiting"
    | "dispatch_count"
    | "target_status"
    | "error"
    | "lateness_ms"
    | "duration_ms"
    | "next_attempt_at_ms"
    | "dlq_pending"
    | "dlq_reason"
    | "dlq_send_failures"
    | "dlq_retry_at_ms"
    | "manual"
    | "accepted_at_ms"
    | "heartbeat_at_ms"
    | "result_json"
    | "flow_gate"
    | "held_ms"
    | "held_by"
    | "slow_since_ms"
    | "fire_at_ms"
    | "triggers_folded"
  >
>;

/** States a run leaves memory in at once: nothing more can happen to it. */
const SETTLES_AT_ONCE = new Set<RunState>(["SUCCEEDED", "SKIPPED", "CANCELLED"]);

function eventOf(run: Run, state: RunState, reason: string, nowMs: number, patch: RunPatch): RunEvent {
  const event: RunEvent = { state, at_ms: nowMs, reason, attempt: run.attempt };
  if (run.fence !== null) event.fence = run.fence;
  if (patch.target_status !== undefined) event.target_status = patch.target_status;
  return event;
}

/**
 * Moves a run to `to` (throws on an illegal transition: that is a bug), records the event with its
 * reason and applies `patch`. A final state settles the run (see the file comment).
 */
export function moveRun(
  state: ShardState,
  run: Run,
  to: RunState,
  reason: string,
  nowMs: number,
  patch: RunPatch = {},
): void {
  transition(run.state, to);
  state.changeRun(run, (changed) => {
    Object.assign(changed, patch);
    changed.state = to;
    changed.updated_at_ms = nowMs;
    changed.events.push(eventOf(changed, to, reason, nowMs, patch));
  });
  if (SETTLES_AT_ONCE.has(to) || (to === "DEAD_LETTERED" && run.dlq_pending === 0)) state.settleRun(run);
}

/**
 * SCHEDULED -> ACQUIRED -> DISPATCHED with one call (a hand-out records both events, as when each
 * was its own write).
 */
export function moveRunVia(
  state: ShardState,
  run: Run,
  via: { state: RunState; reason: string },
  to: RunState,
  reason: string,
  nowMs: number,
  patch: RunPatch = {},
): void {
  transition(run.state, via.state);
  transition(via.state, to);
  state.changeRun(run, (changed) => {
    Object.assign(changed, patch);
    changed.events.push(eventOf(changed, via.state, via.reason, nowMs, patch));
    changed.state = to;
    changed.updated_at_ms = nowMs;
    changed.events.push(eventOf(changed, to, reason, nowMs, patch));
  });
}

/** Records an event that changes no state (a long-running target accepted the call), plus `patch`. */
export function noteRun(
  state: ShardState,
  run: Run,
  reason: string,
  nowMs: number,
  patch: RunPatch = {},
): void {
  state.changeRun(run, (changed) => {
    Object.assign(changed, patch);
    changed.updated_at_ms = nowMs;
    changed.events.push(eventOf(changed, changed.state, reason, nowMs, patch));
  });
}

/** Changes columns without an event (a lease renewed, a timer moved). */
export function patchRun(state: ShardState, run: Run, nowMs: number, patch: RunPatch): void {
  state.changeRun(run, (changed) => {
    Object.assign(changed, patch);
    changed.updated_at_ms = nowMs;
  });
}

/**
 * A new run for (job, instant) unless the instant already has one live (`taken` says whether it
 * has one in its history: the caller knows when that cannot be). A SKIPPED run is recorded and
 * settles at once. Returns the run, or null when the instant was taken.
 */
export function insertRun(state: ShardState, spec: NewRun, taken?: (runId: string) => boolean): Run | null {
  const run = createdRun(spec);
  if (state.runs.has(run.run_id) || taken?.(run.run_id) === true) return null;
  state.addRun(run);
  if (run.state === "SKIPPED") state.settleRun(run);
  return run;
}
