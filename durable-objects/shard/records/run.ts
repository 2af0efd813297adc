// A run as the shard holds it in memory: every column the wheel, the claims and the history need,
// and its history of state changes (events). Durable through the journal (../store/journal.ts):
// each commit writes the runs it changed, whole, so a restart reads back exactly this.
import { DEFAULT_JOB_PRIORITY } from "../../../src/core/jobs/job-spec";
import { runIdFor } from "../../../src/core/runs/run-id";
import type { RunState } from "../../../src/core/runs/run-state";

export type RunKind = "schedule" | "trigger" | "backfill" | "catch_up";

export interface RunEvent {
  state: RunState;
  at_ms: number;
  reason: string;
  attempt: number;
  fence?: number;
  target_status?: number | null;
}

export interface Run {
  run_id: string;
  job_id: string;
  tenant_id: string;
  kind: RunKind;
  scheduled_at_ms: number;
  fire_at_ms: number;
  state: RunState;
  attempt: number;
  max_attempts: number;
  fence: number | null;
  job_version: number;
  /**
   * When this run next needs the wheel: dispatch (SCHEDULED, RETRYING) or lease expiry (ACQUIRED,
   * DISPATCHED, RUNNING). null: terminal, or waiting (see `waiting`).
   */
  due_at_ms: number | null;
  waiting: "overlap" | null;
  dispatch_count: number;
  target_status: number | null;
  error: string | null;
  lateness_ms: number | null;
  duration_ms: number | null;
  next_attempt_at_ms: number | null;
  created_at_ms: number;
  updated_at_ms: number;
  /** Bumped by every change: a pass that awaited (flow gates) sends only runs it saw unchanged. */
  rev: number;
  dlq_pending: number;
  dlq_reason: string | null;
  /** Failed sends of this run's dead letter, and when it is sent again (../runs/dead-letter-sends.ts). */
  dlq_send_failures: number;
  dlq_retry_at_ms: number | null;
  /** 1: an operator retried or redrove it; it is dispatched even while its job is paused. */
  manual: number;
  /** Set while a long-running target works on the attempt it accepted (cleared per attempt). */
  accepted_at_ms: number | null;
  heartbeat_at_ms: number | null;
  result_json: string | null;
  /** The job's priority, copied when the run is created (orders a tenant's due runs). */
  priority: number;
  /** The flow gate this run waits on (it wakes the run when permits come back). */
  flow_gate: string | null;
  /** How long its job's overlap buffer or a flow gate held it past its fire time, and which. */
  held_ms: number | null;
  held_by: string | null;
  /** When the consumer said this claimed run's call was still running a second after it started. */
  slow_since_ms: number | null;
  /** Debounced triggers folded into this run beyond the one that started it. */
  triggers_folded: number;
  events: RunEvent[];
}

export interface NewRun {
  jobId: string;
  tenantId: string;
  kind: RunKind;
  scheduledAtMs: number;
  fireAtMs: number;
  maxAttempts: number;
  jobVersion: number;
  priority?: number;
  state: "SCHEDULED" | "SKIPPED";
  dueAtMs: number | null;
  waiting: "overlap" | null;
  reason: string;
  nowMs: number;
}

/** A run as it starts: its first event says why. */
export function createdRun(run: NewRun): Run {
  return {
    run_id: runIdFor(run.jobId, run.scheduledAtMs),
    job_id: run.jobId,
    tenant_id: run.tenantId,
    kind: run.kind,
    scheduled_at_ms: run.scheduledAtMs,
    fire_at_ms: run.fireAtMs,
    state: run.state,
    attempt: 1,
    max_attempts: run.maxAttempts,
    fence: null,
    job_version: run.jobVersion,
    due_at_ms: run.dueAtMs,
    waiting: run.waiting,
    dispatch_count: 0,
    target_status: null,
    error: null,
    lateness_ms: null,
    duration_ms: null,
    next_attempt_at_ms: null,
    created_at_ms: run.nowMs,
    updated_at_ms: run.nowMs,
    rev: 1,
    dlq_pending: 0,
    dlq_reason: null,
    dlq_send_failures: 0,
    dlq_retry_at_ms: null,
    manual: 0,
    accepted_at_ms: null,
    heartbeat_at_ms: null,
    result_json: null,
    priority: run.priority ?? DEFAULT_JOB_PRIORITY,
    flow_gate: null,
    held_ms: null,
    held_by: null,
    slow_since_ms: null,
    triggers_folded: 0,
    events: [{ state: run.state, at_ms: run.nowMs, reason: run.reason, attempt: 1 }],
  };
}

/**
 * Whether a paused job holds this run back. A pause governs the job's schedule: its scheduled,
 * triggered and backfilled runs wait no further; a run an operator retried or redrove by hand
 * (the natural fix loop: pause_after_failures, fix the endpoint, redrive, resume) still goes.
 */
export function heldByPause(jobStatus: string, run: Pick<Run, "manual">): boolean {
  return jobStatus === "PAUSED" && run.manual !== 1;
}

/**
 * In the dispatch window: handed to the execution path and not reported (sent, or claimed and
 * running). A long-running run whose target accepted the work is not: it holds no consumer.
 */
export function inDispatchWindow(run: Pick<Run, "state" | "accepted_at_ms">): boolean {
  return (
    run.state === "ACQUIRED" ||
    run.state === "DISPATCHED" ||
    (run.state === "RUNNING" && run.accepted_at_ms === null)
  );
}
