// The spans of one attempt of a run, from what the consumer saw of it: the instant firing (first
// attempt), the claim at the shard, the call with the target's status, then either the retry the
// shard scheduled or the run's settling with the run's own root span, which every other span of
// the trace is a child of. Ids come from ./trace-ids.ts, so the spans of attempts made by
// different isolates join one trace, and the target's own spans hang under the attempt's span.
import { type RunSpanName, spanIdOf, traceIdOf } from "./trace-ids";

export type SpanAttributeValue = string | number | boolean;

export interface TraceSpan {
  traceId: string;
  spanId: string;
  /** Absent on the run's root span. */
  parentSpanId?: string;
  name: string;
  /** "client" for the call to the target; everything else is edgecron's own work. */
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  status: "unset" | "ok" | "error";
  statusMessage?: string;
  attributes: Record<string, SpanAttributeValue>;
}

/** What the shard decided about the attempt's outcome (null: the report did not reach it). */
export interface AttemptDecision {
  state: "SUCCEEDED" | "RETRYING" | "DEAD_LETTERED" | "RUNNING";
  nextAttemptAtMs?: number;
}

export interface AttemptFacts {
  runId: string;
  jobId: string;
  tenantId: string;
  attempt: number;
  idempotencyKey: string;
  scheduledAtMs: number;
  claimStartMs: number;
  claimEndMs: number;
  callStartMs: number;
  callEndMs: number;
  /** The target's outcome: its kind, HTTP status (null for a binding or a network error), error. */
  outcome: {
    kind: "success" | "accepted" | "retryable" | "permanent";
    status: number | null;
    error?: string;
  };
  decision: AttemptDecision | null;
  /** When the consumer learnt the shard's decision: the end of `retried` or `settled`. */
  decidedAtMs: number;
}

/** Span names as a collector shows them. */
export const SPAN_NAMES: Record<RunSpanName, string> = {
  run: "edgecron.run",
  fired: "edgecron.run.fired",
  claimed: "edgecron.run.claimed",
  attempt: "edgecron.run.attempt",
  retried: "edgecron.run.retried",
  settled: "edgecron.run.settled",
};

/** The run's ids as span attributes (also what a log line of the run is tagged with). */
export function runAttributes(facts: AttemptFacts): Record<string, SpanAttributeValue> {
  return {
    "edgecron.job_id": facts.jobId,
    "edgecron.tenant_id": facts.tenantId,
    "edgecron.run_id": facts.runId,
    "edgecron.attempt": facts.attempt,
    "edgecron.idempotency_key": facts.idempotencyKey,
  };
}

/**
 * The attempt's spans. The root span (`edgecron.run`, from the instant to the settling) is in the
 * list only when this attempt settled the run: succeeded or dead-lettered. A run that a
 * long-running target accepted settles later, at the shard, and its trace has no root here.
 */
export function attemptSpans(facts: AttemptFacts): TraceSpan[] {
  const traceId = traceIdOf(facts.runId);
  const root = spanIdOf(facts.runId, "run");
  const attributes = runAttributes(facts);
  const child = (name: RunSpanName, startMs: number, endMs: number, perAttempt: boolean): TraceSpan => ({
    traceId,
    spanId: spanIdOf(facts.runId, name, perAttempt ? facts.attempt : 0),
    parentSpanId: root,
    name: SPAN_NAMES[name],
    kind: "internal",
    startMs,
    endMs: Math.max(startMs, endMs),
    status: "unset",
    attributes,
  });
  const spans: TraceSpan[] = [];
  if (facts.attempt === 1) {
    spans.push({
      ...child("fired", facts.scheduledAtMs, facts.claimStartMs, false),
      attributes: { ...attributes, "edgecron.scheduled_at": new Date(facts.scheduledAtMs).toISOString() },
    });
  }
  spans.push(child("claimed", facts.claimStartMs, facts.claimEndMs, true));
  spans.push(callSpan(facts, child("attempt", facts.callStartMs, facts.callEndMs, true)));
  const state = facts.decision?.state;
  if (state === "RETRYING") {
    const nextMs = facts.decision?.nextAttemptAtMs ?? facts.decidedAtMs;
    spans.push({
      ...child("retried", facts.callEndMs, nextMs, true),
      attributes: { ...attributes, "edgecron.next_attempt": facts.attempt + 1 },
    });
  } else if (state === "SUCCEEDED" || state === "DEAD_LETTERED") {
    const ok = state === "SUCCEEDED";
    spans.push({
      ...child("settled", facts.decidedAtMs, facts.decidedAtMs, false),
      attributes: { ...attributes, "edgecron.state": state },
    });
    spans.push({
      traceId,
      spanId: root,
      name: SPAN_NAMES.run,
      kind: "internal",
      startMs: Math.min(facts.scheduledAtMs, facts.claimStartMs),
      endMs: facts.decidedAtMs,
      status: ok ? "ok" : "error",
      ...(ok ? {} : { statusMessage: "dead-lettered" }),
      attributes: { ...attributes, "edgecron.state": state, "edgecron.attempts": facts.attempt },
    });
  }
  return spans;
}

function callSpan(facts: AttemptFacts, span: TraceSpan): TraceSpan {
  const { kind, status, error } = facts.outcome;
  const failed = kind === "retryable" || kind === "permanent";
  return {
    ...span,
    kind: "client",
    status: failed ? "error" : "ok",
    ...(failed && error !== undefined ? { statusMessage: error } : {}),
    attributes: {
      ...span.attributes,
      "edgecron.outcome": kind,
      ...(status === null ? {} : { "http.response.status_code": status }),
    },
  };
}
