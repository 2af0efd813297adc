// Sends a shard's pending dead letters to the dead-letter queue. One unsplit sendBatch of up to 100
// letters, each carrying the job's body and headers, once went past the queue's limits: the alarm
// threw on every pass and the shard recorded no dead letter again, for every tenant on it. Now:
// - every send is split to the queue's limits (src/core/load/queue-limits.ts), measured on the JSON;
// - a letter too large for one message carries a reference instead of the payload: the consumer
//   reads the job's headers and body from D1 (src/delivery/dead-letter-payload.ts);
// - a failed send is logged, never thrown: its rows stay pending with a backoff, and are re-sent
//   by reference (after a second failure, each alone), so no batch is ever retried identically.

import type { JobSpec } from "../../../src/core/jobs/job-spec";
import { deadLetterPayload, EMPTY_PAYLOAD } from "../../../src/core/jobs/target-payload";
import { jsonBytes, QUEUE_SEND_LIMITS, splitIntoBatches } from "../../../src/core/load/queue-limits";
import { type QstashRunContext, qstashRunContextOf } from "../../../src/core/qstash/delivery";
import { logEvent } from "../../../src/log";
import type { DeadLetterMessage } from "../../../src/shard/protocol";
import { jobSpec } from "../jobs/job-specs";
import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";
import { patchRun } from "../state/run-moves";
import type { ShardState } from "../state/shard-state";

const DEAD_LETTERS_PER_PASS = 100;
/** After this many failed sends in one pass the rest wait: the queue is likely down. */
const MAX_FAILED_SENDS_PER_PASS = 3;
/** Backoff after a failed send: 1 s, doubling per failure of the row, at most 5 minutes. */
const SEND_BACKOFF_BASE_MS = 1_000;
const SEND_BACKOFF_MAX_MS = 300_000;
/** A reference message keeps this much of the run's last error (what keeps it small). */
const REFERENCE_ERROR_CHARS = 2_000;

interface Outgoing {
  run: Run;
  body: DeadLetterMessage;
  bytes: number;
}

export interface DeadLetterSendSummary {
  sent: number;
  byReference: number;
  failed: number;
}

/** Sends what is pending and due; never throws for a failed send (see the file comment). */
export async function sendDeadLetters(
  state: ShardState,
  queue: Queue,
  shard: number,
  nowMs: number,
): Promise<DeadLetterSendSummary> {
  const summary: DeadLetterSendSummary = { sent: 0, byReference: 0, failed: 0 };
  const runs = state.runs
    .pendingDeadLetters()
    .filter((run) => (run.dlq_retry_at_ms ?? 0) <= nowMs)
    .sort((a, b) => (a.dlq_retry_at_ms ?? 0) - (b.dlq_retry_at_ms ?? 0))
    .slice(0, DEAD_LETTERS_PER_PASS);
  if (runs.length === 0) return summary;
  const outgoing = runs.map((run) => outgoingOf(state, run, state.jobs.get(run.job_id) ?? null, shard));
  const batches = [
    ...splitIntoBatches(
      outgoing.filter((item) => item.run.dlq_send_failures < 2),
      (item) => item.bytes,
    ),
    ...outgoing.filter((item) => item.run.dlq_send_failures >= 2).map((item) => [item]),
  ];
  let failedSends = 0;
  for (const batch of batches) {
    if (failedSends >= MAX_FAILED_SENDS_PER_PASS) {
      deferRuns(state, batch, nowMs + SEND_BACKOFF_BASE_MS);
      continue;
    }
    try {
      // What the send took is written first: the output gate holds the send until it is durable.
      state.commit();
      await queue.sendBatch(batch.map((item) => ({ body: item.body, contentType: "json" as const })));
      markSent(state, batch, Date.now());
      summary.sent += batch.length;
      summary.byReference += batch.filter((item) => item.body.payload_ref !== undefined).length;
    } catch (error) {
      failedSends += 1;
      markFailed(state, batch, nowMs);
      summary.failed += batch.length;
      const bytes = batch.reduce((total, item) => total + item.bytes, 0);
      logEvent("shard.dead_letter_send_failed", { shard, runs: batch.length, bytes, error });
    }
  }
  return summary;
}

/** The message for a run: the payload inline when it fits and never failed, else by reference. */
function outgoingOf(state: ShardState, run: Run, job: JobRecord | null, shard: number): Outgoing {
  const spec = job ? jobSpec(state, job) : null;
  const target = spec?.target ?? null;
  const payload = target === null ? EMPTY_PAYLOAD : deadLetterPayload(target);
  const { method, url } = payload;
  const inline: DeadLetterMessage = {
    kind: "dead_letter",
    run_id: run.run_id,
    job_id: run.job_id,
    tenant: run.tenant_id,
    shard,
    scheduled_at: run.scheduled_at_ms,
    attempt: run.attempt,
    reason: (run.dlq_reason ?? "exhausted") as DeadLetterMessage["reason"],
    last_error: run.error,
    target_status: run.target_status,
    payload,
    on_failure: spec?.on_failure ?? null,
    ...qstashLetterField(spec, job),
  };
  const inlineBytes = jsonBytes(inline);
  if (run.dlq_send_failures === 0 && inlineBytes <= QUEUE_SEND_LIMITS.maxMessageBytes) {
    return { run, body: inline, bytes: inlineBytes };
  }
  // Small by construction: ids, a URL and on_failure (each at most 2,048 characters), the error cut.
  const reference: DeadLetterMessage = {
    ...inline,
    last_error: run.error === null ? null : run.error.slice(0, REFERENCE_ERROR_CHARS),
    payload: { method, url, headers: {}, body: null },
    payload_ref: { run_id: run.run_id, job_id: run.job_id, shard },
  };
  return { run, body: reference, bytes: jsonBytes(reference) };
}

function qstashLetterField(spec: JobSpec | null, job: JobRecord | null): { qstash?: QstashRunContext } {
  const qstash = spec === null || job === null ? undefined : qstashRunContextOf(spec, job.created_at_ms);
  return qstash === undefined ? {} : { qstash };
}

/**
 * The letters went out: a run still at the attempt sent leaves memory into its history (a run
 * redriven and dead-lettered again meanwhile stays pending).
 */
function markSent(state: ShardState, batch: readonly Outgoing[], nowMs: number): void {
  for (const { run, attempt } of batch.map((item) => ({ run: item.run, attempt: item.body.attempt }))) {
    if (state.runs.get(run.run_id) !== run || run.attempt !== attempt || run.dlq_pending !== 1) continue;
    patchRun(state, run, nowMs, { dlq_pending: 0, dlq_send_failures: 0, dlq_retry_at_ms: null });
    if (run.state === "DEAD_LETTERED") state.settleRun(run);
  }
}

function markFailed(state: ShardState, batch: readonly Outgoing[], nowMs: number): void {
  for (const { run } of batch) {
    const failures = run.dlq_send_failures + 1;
    const backoffMs = Math.min(SEND_BACKOFF_MAX_MS, SEND_BACKOFF_BASE_MS * 2 ** (failures - 1));
    patchRun(state, run, nowMs, { dlq_send_failures: failures, dlq_retry_at_ms: nowMs + backoffMs });
  }
}

/** Not tried in this pass (too many sends failed): tried again soon, not counted as a failure. */
function deferRuns(state: ShardState, batch: readonly Outgoing[], retryAtMs: number): void {
  for (const { run } of batch) patchRun(state, run, Date.now(), { dlq_retry_at_ms: retryAtMs });
}
