// A /v2 job's call with its QStash callbacks: `Upstash-Callback` receives every attempt's answer
// (QStash calls it for each retry too), as a side delivery (../queue/qstash-callback-deliveries.ts);
// for `Upstash-Failure-Callback`, a failed attempt's whole answer is kept
// (src/service/failure-callbacks.ts), which the dead letter's failure callback then carries.

import { base64OfBytes, base64OfText } from "../core/common/encoding";
import { serializeTargetBody } from "../core/jobs/job-spec";
import type { CallbackSource, TargetAnswer } from "../core/qstash/callback";
import type { QstashRunContext } from "../core/qstash/delivery";
import type { TargetOutcome } from "../core/runs/outcome";
import { logEvent } from "../log";
import { callbackDelivery } from "../queue/qstash-callback-deliveries";
import { enqueueSideDeliveries } from "../queue/side-delivery-queue";
import { keepFailedAnswer } from "../service/failure-callbacks";
import { callTarget } from "./target-call";
import type { CallTargetInput } from "./target-input";

/** The most of a target's answer a callback carries (a queue message holds 128 KB). */
const MAX_ANSWER_BODY_BYTES = 32 * 1024;

/**
 * Calls the target; for a /v2 job with a callback, also keeps the answer and enqueues the
 * callback before returning, so the attempt's callback is queued before its outcome is reported;
 * for one with a failure callback, keeps a failed attempt's answer before its outcome is reported
 * (so before any dead letter). A failed enqueue or keep is logged, never the run's failure.
 */
export async function callTargetWithCallback(
  env: Env,
  input: CallTargetInput,
  run: { tenantId: string; qstash?: QstashRunContext },
): Promise<TargetOutcome> {
  const callback = run.qstash?.delivery.callback;
  const failureCallback = run.qstash?.delivery.failure_callback;
  if (run.qstash === undefined || (!callback && !failureCallback) || input.target.type !== "http") {
    return callTarget(input);
  }
  const kept: { answer: Promise<TargetAnswer> | null } = { answer: null };
  const baseFetch = input.fetchImpl ?? fetch;
  const keepingAnswer = (async (request: RequestInfo | URL, init?: RequestInit) => {
    const response = await baseFetch(request, init);
    kept.answer = answerOf(response.clone());
    return response;
  }) as typeof fetch;
  const outcome = await callTarget({ ...input, fetchImpl: keepingAnswer });
  const answer = (await kept.answer) ?? noAnswer(outcome);
  if (failureCallback && (outcome.kind === "retryable" || outcome.kind === "permanent")) {
    await keepFailedAnswer(env, input.runId, input.attempt, answer);
  }
  if (!callback) return outcome;
  const delivery = callbackDelivery(run.tenantId, callback, sourceOf(input, run.qstash), answer, false);
  try {
    await enqueueSideDeliveries(env, [delivery]);
  } catch (error) {
    logEvent("qstash.callback_enqueue_failed", { run_id: input.runId, attempt: input.attempt, error });
  }
  return outcome;
}

function sourceOf(input: CallTargetInput, context: QstashRunContext): CallbackSource {
  const target = input.target.type === "http" ? input.target : null;
  return {
    context,
    jobId: input.jobId,
    runId: input.runId,
    attempt: input.attempt,
    scheduledAtMs: input.scheduledAtMs,
    url: target?.url ?? "",
    method: target?.method ?? "POST",
    headers: target?.headers ?? {},
    body: serializeTargetBody(target?.body) ?? "",
  };
}

/** The answer's status, headers and first MAX_ANSWER_BODY_BYTES. Never throws. */
async function answerOf(response: Response): Promise<TargetAnswer> {
  const headers: Record<string, string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = [...(headers[name] ?? []), value];
  });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const reader = response.body?.getReader();
    while (reader !== undefined && total < MAX_ANSWER_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
    reader?.cancel().catch(() => {});
  } catch {
    // A body that fails mid-read still leaves the status and headers to report.
  }
  const bytes = new Uint8Array(Math.min(total, MAX_ANSWER_BODY_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  return { status: response.status, headers, bodyBase64: base64OfBytes(bytes) };
}

/** No answer came (timeout, network error, refused address): the error is the body. */
function noAnswer(outcome: TargetOutcome): TargetAnswer {
  return {
    status: outcome.status,
    headers: {},
    bodyBase64: base64OfText("error" in outcome ? outcome.error : ""),
  };
}
