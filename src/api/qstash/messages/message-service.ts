// One message (a publish, or one item of a batch) from its parts to a stored job: headers and
// destination checked, deduplicated within QStash's 90-day window, validated as a /v1 job (the
// same schema, SSRF policy and limits). Storing and pushing are the routes' part, so a batch
// writes all its jobs in one D1 batch.

import { sha256Hex } from "../../../core/common/encoding";
import { MAX_TARGET_BODY_BYTES } from "../../../core/jobs/job-spec";
import { queueFlowKey } from "../../../core/qstash/queue-keys";
import { newStoredJob } from "../../../service/job-writes";
import { checkJobFor } from "../../../service/jobs/job-check";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { duplicateInWindow } from "../../../service/qstash/messages";
import type { EdgecronError } from "../../http/problem";
import { checkDestination } from "../destination";
import { badRequest } from "../errors";
import { type HeaderError, parseMessageHeaders } from "../headers";
import { planWorkflowMessage, type WorkflowRecord } from "../workflow/workflow-message";
import { headerErrorsOf, messageJobInput } from "./message-job";

/** How long a deduplication id (or content hash) keeps a second message out. */
export const DEDUPLICATION_WINDOW_MS = 90 * 86_400_000;

/** What publish answers for one message. */
export interface PublishedMessage {
  messageId: string;
  url: string;
  deduplicated?: true;
}

export type PreparedMessage =
  | { kind: "new"; job: StoredJob; answer: PublishedMessage; workflow?: WorkflowRecord }
  | { kind: "duplicate"; answer: PublishedMessage };

export interface MessageParts {
  env: Env;
  tenantId: string;
  destination: string;
  headers: Headers;
  body: Uint8Array;
  nowMs: number;
  /** Batch items name their index in every error. */
  errorPrefix?: string;
  /** Enqueued: the queue's limit becomes the message's flow control. */
  queue?: { name: string; parallelism: number };
  /** One endpoint's message of a publish to a URL group. */
  urlGroup?: { name: string; endpointName: string | null };
}

/** Checks one message and finds its duplicate; throws a 400 naming every bad header or field. */
export async function prepareMessage(original: MessageParts): Promise<PreparedMessage> {
  const workflow = await planWorkflowMessage(
    original.env,
    original.tenantId,
    original.destination,
    original.headers,
    original.body,
  );
  const parts =
    workflow === null ? original : { ...original, headers: workflow.headers, body: workflow.body };
  const errors: HeaderError[] = [];
  const parsed = parseMessageHeaders(parts.headers, parts.nowMs);
  if (!parsed.ok) errors.push(...parsed.errors);
  else if (parts.queue !== undefined) {
    if (parsed.headers.flowControl !== null) {
      errors.push({ header: "Upstash-Flow-Control-Key", message: "cannot be combined with a queue" });
    }
    const { name, parallelism } = parts.queue;
    parsed.headers.flowControl = { key: queueFlowKey(name), parallelism, rate: null, periodSeconds: null };
  }
  const destination = checkDestination(parts.destination);
  if (!destination.ok)
    errors.push({ header: "destination", message: destination.error.replace(/^destination: /, "") });
  const body = bodyText(parts.body, errors);
  if (!parsed.ok || !destination.ok || body === null || errors.length > 0)
    throw prefixed(errors, parts.errorPrefix);

  const dedupKey = await deduplicationKey(
    parsed.headers,
    destination.url,
    body,
    parts.urlGroup !== undefined,
  );
  if (dedupKey !== null) {
    const windowStartMs = parts.nowMs - DEDUPLICATION_WINDOW_MS;
    const existing = await duplicateInWindow(parts.env, parts.tenantId, dedupKey, windowStartMs);
    if (existing !== null) return { kind: "duplicate", answer: duplicateAnswer(existing) };
  }
  const input = messageJobInput({
    destination: destination.url,
    headers: parsed.headers,
    body,
    nowMs: parts.nowMs,
  });
  if (parts.urlGroup !== undefined && input.qstash !== undefined)
    input.qstash = {
      ...input.qstash,
      topic_name: parts.urlGroup.name,
      ...(parts.urlGroup.endpointName === null ? {} : { endpoint_name: parts.urlGroup.endpointName }),
    };
  const check = checkJobFor(parts.env, parts.tenantId, input, parts.nowMs);
  if (!check.ok) throw prefixed(headerErrorsOf(check.errors), parts.errorPrefix);
  const idempotency = dedupKey === null ? null : { key: dedupKey, requestHash: dedupKey };
  const job = newStoredJob(parts.env, parts.tenantId, check.spec, parts.nowMs, idempotency);
  const answer = { messageId: job.id, url: destination.url };
  if (workflow === null) return { kind: "new", job, answer };
  return {
    kind: "new",
    job,
    answer,
    workflow: { run: workflow.run, step: { ...workflow.step, messageId: job.id } },
  };
}

/** The answer for a job found again under its key (a concurrent publish won the insert). */
export function duplicateAnswer(job: StoredJob): PublishedMessage {
  const url = job.spec.target.type === "http" ? job.spec.target.url : job.spec.name;
  return { messageId: job.id, url, deduplicated: true };
}

/** The body as text, or null with a `body` error: too large, or not UTF-8. */
export function bodyText(body: Uint8Array, errors: HeaderError[]): string | null {
  if (body.byteLength > MAX_TARGET_BODY_BYTES) {
    errors.push({ header: "body", message: `must be at most ${MAX_TARGET_BODY_BYTES} bytes` });
    return null;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body);
  } catch {
    errors.push({ header: "body", message: "must be UTF-8 text (binary bodies are not served)" });
    return null;
  }
}

/**
 * The stored key of a deduplicated message. It starts with a newline, which no header value can
 * hold, so no /v1 Idempotency-Key can ever collide with it.
 */
async function deduplicationKey(
  headers: {
    deduplicationId: string | null;
    contentBasedDeduplication: boolean;
    method: string;
    forwardHeaders: Record<string, string>;
  },
  destination: string,
  body: string,
  perEndpoint: boolean,
): Promise<string | null> {
  // A URL group's endpoints share the publish's id, yet each is a message of its own.
  if (headers.deduplicationId !== null)
    return `\nqstash-dedup:${headers.deduplicationId}${perEndpoint ? `\n${destination}` : ""}`;
  if (!headers.contentBasedDeduplication) return null;
  const forwarded = Object.entries(headers.forwardHeaders).sort(([a], [b]) => (a < b ? -1 : 1));
  const content = JSON.stringify([destination, headers.method, forwarded, body]);
  return `\nqstash-content:${await sha256Hex(content)}`;
}

function prefixed(errors: HeaderError[], prefix: string | undefined): EdgecronError {
  return badRequest(
    prefix === undefined ? errors : errors.map((error) => ({ ...error, header: `${prefix}${error.header}` })),
  );
}
