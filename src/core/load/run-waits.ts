// Why a run waits, and how much of its lateness its job asked for. The shard writes the reason of
// every hold into the run's history (the strings below) and how long the hold kept the run past
// its fire time; the API reads them back from the history alone, so each cause is named once here.
import { formatDuration } from "../common/duration";
import type { FlowLimits } from "./flow-control";

/** What a run waits for (the run view's `waiting.cause`). */
export const WAIT_CAUSES = [
  "instant",
  "overlap",
  "flow_control",
  "tenant_limits",
  "tenant_share",
  "host_throttled",
  "retry_backoff",
  "dispatch",
] as const;
export type WaitCause = (typeof WAIT_CAUSES)[number];

/** The policies that may hold a run past its fire time, the scheduler apart (the stats' split). */
export const HOLD_CAUSES = [
  "overlap",
  "flow_control",
  "tenant_limits",
  "host_throttled",
  "backfill",
  "catch_up",
  "misfire",
] as const;
export type HoldCause = (typeof HOLD_CAUSES)[number];

/** The history reason of a run buffered by its job's overlap policy. */
export function overlapWaitReason(policy: string): string {
  return `overlap ${policy}: waiting for the previous run`;
}

/** The history reason of a buffered run let go once nothing else of its job is in flight. */
export function overlapReleaseReason(policy: string): string {
  return `overlap ${policy}: the previous run ended, sent now`;
}

const counted = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;

function limitsText(limits: FlowLimits, rateUnit: string, parallel: (count: number) => string): string {
  const parts: string[] = [];
  if (limits.rate !== null)
    parts.push(`${counted(limits.rate, rateUnit)} per ${formatDuration(limits.periodMs)}`);
  if (limits.parallelism !== null) parts.push(parallel(limits.parallelism));
  return parts.join(", ");
}

/**
 * The history reason of a run a flow gate refused: its job's key (`key` set) or its tenant's own
 * limits. `flowWaitReason("billing", {rate: 10, periodMs: 60_000, parallelism: 2})` ->
 * `flow control key "billing": waiting for a permit (10 starts per 1m, 2 in flight)`.
 */
export function flowWaitReason(key: string | null, limits: FlowLimits): string {
  return key === null
    ? `tenant limits: waiting for a permit (${limitsText(limits, "trigger", (n) => counted(n, "concurrent call"))})`
    : `flow control key ${JSON.stringify(key)}: waiting for a permit (${limitsText(limits, "start", (n) => `${n} in flight`)})`;
}

/**
 * The history reason of a run its destination host's throttle holds (src/core/load/host-throttle.ts):
 * `hostWaitReason("https://api.example.com", 4, null)` ->
 * `host throttled: https://api.example.com said to slow down, waiting for a permit (4 calls in flight)`.
 */
export function hostWaitReason(origin: string, limitCalls: number, pausedUntilMs: number | null): string {
  const until = pausedUntilMs === null ? "" : `, paused until ${new Date(pausedUntilMs).toISOString()}`;
  return `host throttled: ${origin} said to slow down, waiting for a permit (${counted(Math.max(1, Math.floor(limitCalls)), "call")} in flight${until})`;
}

/** The run as its history records it: what `waitingOf` reads. */
export interface WaitingInput {
  state: string;
  kind: string;
  /** The run's history, oldest first. */
  events: readonly { state?: unknown; reason?: unknown; at_ms?: unknown }[];
  nextAttemptAtMs: number | null;
  scheduledAtMs: number;
}

export interface Waiting {
  cause: WaitCause;
  /** What it waits for, in words (the reason the shard recorded, or what its state means). */
  reason: string;
  /** When the wait began: the history event that started it. */
  sinceMs: number | null;
}

/** The cause of a wait its history reason names, or null for a reason that names none. */
function causeOfReason(reason: string): WaitCause | null {
  if (reason.startsWith("overlap ") && reason.includes("waiting")) return "overlap";
  if (reason.startsWith("flow control key ")) return "flow_control";
  if (reason.startsWith("tenant limits: ")) return "tenant_limits";
  if (reason.startsWith("host throttled: ")) return "host_throttled";
  // The shard's dispatch window and the consumer's room for a tenant's calls: the tenant's share.
  if (reason.includes("tenant's share") || reason.startsWith("deferred by the consumer"))
    return "tenant_share";
  return null;
}

/**
 * Why a run that has not gone out waits, from its history: null once it was handed on (or ended).
 * A SCHEDULED run waits for what its last reason names; otherwise for its instant, or to be sent.
 */
export function waitingOf(run: WaitingInput, nowMs: number): Waiting | null {
  const last = run.events.at(-1);
  const reason = typeof last?.reason === "string" ? last.reason : "";
  const sinceMs = typeof last?.at_ms === "number" ? last.at_ms : null;
  if (run.state === "RETRYING") {
    const at = run.nextAttemptAtMs === null ? "" : ` at ${new Date(run.nextAttemptAtMs).toISOString()}`;
    return { cause: "retry_backoff", reason: `retry backoff: the next attempt goes out${at}`, sinceMs };
  }
  if (run.state !== "SCHEDULED") return null;
  const cause = causeOfReason(reason);
  if (cause !== null) return { cause, reason, sinceMs };
  if (run.scheduledAtMs > nowMs) {
    return { cause: "instant", reason: `waiting for its instant (${reason || run.kind})`, sinceMs };
  }
  return { cause: "dispatch", reason: `due, waiting to be sent (${reason || run.kind})`, sinceMs };
}

/** A dispatched run's lateness as its history records it: what `latenessSplit` reads. */
export interface LatenessInput {
  latenessMs: number;
  kind: string;
  /** The shard fired it late under its misfire policy (its first history reason says so). */
  misfire: boolean;
  /** How long past its fire time an overlap buffer or a flow gate held it (null: none did). */
  heldMs: number | null;
  heldBy: string | null;
  createdAtMs: number;
  scheduledAtMs: number;
}

export interface LatenessSplit {
  /** From when the run could go out (its fire time, or the end of what its job asked for) to its claim. */
  schedulerMs: number;
  /** What its job asked for: the hold of its overlap, flow control or tenant limits, or a late fire on purpose. */
  policyMs: number;
  policy: HoldCause | null;
}

function deliberateCause(run: LatenessInput): HoldCause | null {
  if (run.kind === "backfill" || run.kind === "catch_up") return run.kind;
  return run.misfire ? "misfire" : null;
}

/**
 * Splits a run's lateness into the scheduler's own and what its job asked for. A backfill, a
 * catch-up or a misfire fire is late on purpose until it is created; a hold (overlap buffer, flow
 * gate) until it ends; whatever comes after is the scheduler's. The larger of the two counts.
 */
export function latenessSplit(run: LatenessInput): LatenessSplit {
  const deliberate = deliberateCause(run);
  const fromCreation = deliberate === null ? 0 : Math.max(0, run.createdAtMs - run.scheduledAtMs);
  const held = run.heldMs ?? 0;
  const heldCause = (HOLD_CAUSES as readonly string[]).includes(run.heldBy ?? "")
    ? (run.heldBy as HoldCause)
    : null;
  const policy = held > fromCreation ? heldCause : deliberate;
  const policyMs = Math.min(run.latenessMs, Math.max(held, fromCreation));
  return { schedulerMs: run.latenessMs - policyMs, policyMs, policy: policyMs > 0 ? policy : null };
}
