// QStash callbacks of /v2 jobs, as side deliveries (./side-deliveries.ts) signed the QStash way:
// `Upstash-Callback` receives every attempt's answer (QStash calls it for each retry too), and
// `Upstash-Failure-Callback` the last answer of a run that was dead-lettered, with its `dlqId`.

import { base64OfBytes, base64OfText } from "../core/encoding";
import { serializeTargetBody } from "../core/job-spec";
import type { TargetOutcome } from "../core/outcome";
import { type CallbackSource, qstashCallbackBody, type TargetAnswer } from "../core/qstash/callback";
import type { QstashRunContext } from "../core/qstash/delivery";
import { QSTASH_USER_AGENT } from "../core/qstash/delivery";
import { logEvent } from "../log";
import type { DeadLetterMessage } from "../shard/protocol";
import { enqueueSideDeliveries, type SideDelivery } from "./side-deliveries";
import { callTarget } from "./target-call";
import type { CallTargetInput } from "./target-input";

/** The most of a target's answer a callback carries (a queue message holds 128 KB). */
const MAX_ANSWER_BODY_BYTES = 32 * 1024;
const CALLBACK_TIMEOUT_MS = 30_000;
const WORKFLOW_RUN_HEADER = "upstash-workflow-runid";

/**
 * Calls the target; for a /v2 job with a callback, also keeps the answer and enqueues the
 * callback before returning, so the attempt's callback is queued before its outcome is reported.
 * A failed enqueue is logged, never the run's failure.
 */
export async function callTargetWithCallback(
  env: Env,
  input: CallTargetInput,
  run: { tenantId: string; qstash?: QstashRunContext },
): Promise<TargetOutcome> {
  const callback = run.qstash?.delivery.callback;
  if (run.qstash === undefined || !callback || input.target.type !== "http") return callTarget(input);
  const kept: { answer: Promise<TargetAnswer> | null } = { answer: null };
  const baseFetch = input.fetchImpl ?? fetch;
  const keepingAnswer = (async (request: RequestInfo | URL, init?: RequestInit) => {
    const response = await baseFetch(request, init);
    kept.answer = answerOf(response.clone());
    return response;
  }) as typeof fetch;
  const outcome = await callTarget({ ...input, fetchImpl: keepingAnswer });
  const answer = (await kept.answer) ?? noAnswer(outcome);
  const delivery = callbackDelivery(run.tenantId, callback, sourceOf(input, run.qstash), answer, false);
  try {
    await enqueueSideDeliveries(env, [delivery]);
  } catch (error) {
    logEvent("qstash.callback_enqueue_failed", { run_id: input.runId, attempt: input.attempt, error });
  }
  return outcome;
}

/** The failure callbacks of dead letters of /v2 jobs that have one (`dlqIds[i]` is letter i's). */
export function failureCallbackDeliveries(
  letters: readonly DeadLetterMessage[],
  dlqIds: readonly string[],
): SideDelivery[] {
  return letters.flatMap((letter, index) => {
    const url = letter.qstash?.delivery.failure_callback;
    const dlqId = dlqIds[index];
    if (letter.qstash === undefined || !url || dlqId === undefined) return [];
    const source: CallbackSource = {
      context: letter.qstash,
      jobId: letter.job_id,
      runId: letter.run_id,
      attempt: letter.attempt,
      scheduledAtMs: letter.scheduled_at,
      url: letter.payload.url,
      method: letter.payload.method,
      headers: letter.payload.headers,
      body: serializeTargetBody(letter.payload.body) ?? "",
    };
    const answer: TargetAnswer = {
      status: letter.target_status,
      headers: {},
      bodyBase64: base64OfText(answeredBodyOf(letter.last_error)),
    };
    return [callbackDelivery(letter.tenant, url, source, answer, true, dlqId)];
  });
}

function callbackDelivery(
  tenantId: string,
  url: string,
  source: CallbackSource,
  answer: TargetAnswer,
  failure: boolean,
  dlqId?: string,
): SideDelivery {
  const id = `${failure ? "qfcb" : "qcb"}_${source.runId}_${source.attempt}`;
  const delivery = source.context.delivery;
  const own = (failure ? delivery.failure_callback_headers : delivery.callback_headers) ?? {};
  const body = qstashCallbackBody(answer, source, dlqId);
  return {
    id,
    idempotencyKey: id,
    purpose: { kind: "qstash_callback", runId: source.runId, failure },
    url,
    method: "POST",
    headers: {
      ...own,
      ...(own[WORKFLOW_RUN_HEADER] === undefined ? {} : { "upstash-workflow-sdk-version": "1" }),
      "content-type": "application/json",
      "user-agent": QSTASH_USER_AGENT,
      "upstash-message-id": id,
      "upstash-retried": "0",
    },
    body: callbackBodyText(body, own[WORKFLOW_RUN_HEADER], id, failure, source.context.jobCreatedAtMs),
    signing: { style: "qstash", tenantId },
    timeoutMs: CALLBACK_TIMEOUT_MS,
  };
}

/**
 * The callback's body: QStash's callback JSON, but for a callback into a workflow run (its
 * sub-headers name the run) in the form the Workflow SDK reads there: a `context.call` answer as
 * a one-step list (the SDK's step-list body, the answer as its first entry), a failure with the
 * run's id and creation time added.
 */
function callbackBodyText(
  body: ReturnType<typeof qstashCallbackBody>,
  workflowRunId: string | undefined,
  messageId: string,
  failure: boolean,
  createdAtMs: number,
): string {
  if (workflowRunId === undefined) return JSON.stringify(body);
  if (failure) return JSON.stringify({ ...body, workflowRunId, workflowCreatedAt: createdAtMs });
  return JSON.stringify([{ messageId, body: base64OfText(JSON.stringify(body)), callType: "fromCallback" }]);
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

/**
 * What a dead letter kept of the answer's body: the run's error is `target answered <status>:
 * <first bytes of the body>` (target-call.ts) when the target answered, else the error itself.
 */
function answeredBodyOf(lastError: string | null): string {
  if (lastError === null) return "";
  return /^target answered \d{3}: ([\s\S]*)$/.exec(lastError)?.[1] ?? lastError;
}

/** No answer came (timeout, network error, refused address): the error is the body. */
function noAnswer(outcome: TargetOutcome): TargetAnswer {
  return {
    status: outcome.status,
    headers: {},
    bodyBase64: base64OfText("error" in outcome ? outcome.error : ""),
  };
}
