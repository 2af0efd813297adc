// The side deliveries of QStash callbacks (what ../delivery/qstash-callbacks.ts enqueues after
// an attempt, and what the dead-letter consumer and the QStash door's workflow DLQ enqueue for a
// dead-lettered run): `Upstash-Callback` and `Upstash-Failure-Callback` bodies and headers, signed
// the QStash way.
import { base64OfText } from "../core/common/encoding";
import { serializeTargetBody } from "../core/jobs/job-spec";
import { type CallbackSource, qstashCallbackBody, type TargetAnswer } from "../core/qstash/callback";
import { QSTASH_USER_AGENT } from "../core/qstash/delivery";
import type { DeadLetterMessage } from "../shard/protocol";
import type { SideDelivery } from "./side-delivery-types";

const CALLBACK_TIMEOUT_MS = 30_000;
const WORKFLOW_RUN_HEADER = "upstash-workflow-runid";

/**
 * What a failure callback carries beyond its dead letter (src/service/failure-callbacks.ts): the
 * failed call's whole answer when it was kept, and for a step of a workflow run, the run.
 */
export interface FailureCallbackExtras {
  answer?: TargetAnswer | undefined;
  workflow?: WorkflowOfCallback;
  /** Another dead letter of the same workflow run called back: this one does not. */
  skip?: true;
}

/** The workflow run a failure callback reports: its initial payload, URL and creation time. */
export interface WorkflowOfCallback {
  initialBodyBase64: string;
  url: string;
  createdAtMs: number;
}

/**
 * The failure callbacks of dead letters of /v2 jobs that have one (`dlqIds[i]` and `extras[i]`
 * are letter i's).
 */
export function failureCallbackDeliveries(
  letters: readonly DeadLetterMessage[],
  dlqIds: readonly string[],
  extras: readonly FailureCallbackExtras[] = [],
): SideDelivery[] {
  return letters.flatMap((letter, index) => {
    const url = letter.qstash?.delivery.failure_callback;
    const dlqId = dlqIds[index];
    const extra = extras[index] ?? {};
    if (letter.qstash === undefined || !url || dlqId === undefined || extra.skip) return [];
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
    const answer: TargetAnswer = extra.answer ?? {
      status: letter.target_status,
      headers: {},
      bodyBase64: base64OfText(answeredBodyOf(letter.last_error)),
    };
    return [callbackDelivery(letter.tenant, url, source, answer, true, dlqId, extra.workflow)];
  });
}

export function callbackDelivery(
  tenantId: string,
  url: string,
  source: CallbackSource,
  answer: TargetAnswer,
  failure: boolean,
  dlqId?: string,
  workflow?: WorkflowOfCallback,
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
    body: callbackBodyText(
      body,
      own[WORKFLOW_RUN_HEADER],
      id,
      failure,
      source.context.jobCreatedAtMs,
      workflow,
    ),
    signing: { style: "qstash", tenantId },
    timeoutMs: CALLBACK_TIMEOUT_MS,
  };
}

/**
 * The callback's body: QStash's callback JSON, but for a callback into a workflow run (its
 * sub-headers name the run) in the form the Workflow SDK reads there: a `context.call` answer as
 * a one-step list (the SDK's step-list body, the answer as its first entry), a failure with the
 * run's id and creation time added and, as QStash sends it, the run's initial payload as
 * `sourceBody` (the SDK's `context.requestPayload`) and the run's URL as `url`.
 */
function callbackBodyText(
  body: ReturnType<typeof qstashCallbackBody>,
  workflowRunId: string | undefined,
  messageId: string,
  failure: boolean,
  createdAtMs: number,
  workflow: WorkflowOfCallback | undefined,
): string {
  if (workflowRunId === undefined) return JSON.stringify(body);
  if (failure && workflow !== undefined) {
    return JSON.stringify({
      ...body,
      url: workflow.url,
      sourceBody: workflow.initialBodyBase64,
      workflowRunId,
      workflowCreatedAt: workflow.createdAtMs,
    });
  }
  if (failure) return JSON.stringify({ ...body, workflowRunId, workflowCreatedAt: createdAtMs });
  return JSON.stringify([{ messageId, body: base64OfText(JSON.stringify(body)), callType: "fromCallback" }]);
}

/**
 * What a dead letter kept of the answer's body: the run's error is `target answered <status>:
 * <first bytes of the body>` (target-call.ts) when the target answered, else the error itself.
 */
function answeredBodyOf(lastError: string | null): string {
  if (lastError === null) return "";
  return /^target answered \d{3}: ([\s\S]*)$/.exec(lastError)?.[1] ?? lastError;
}
