// A QStash message as an edgecron job: a one-shot job (schedule `once` at the Not-Before or
// Delay instant) whose target is the destination, stored and dispatched by the same engine as
// any /v1 job (checkJobInput: the same schema, SSRF policy and limits).

import { formatDuration } from "../../../core/common/duration";
import type { JobCreate } from "../../../core/jobs/job-spec";
import type { FieldError } from "../../http/problem";
import type { FlowControlHeader, HeaderError, MessageHeaders } from "../headers";

/** Every /v2 message's job name starts with this, so a name-prefix scan finds them. */
export const MESSAGE_JOB_PREFIX = "qstash:";
/** QStash's default retry delay when `Upstash-Retry-Delay` is absent: e^(2.5·n) seconds for the n-th retry (12 s, 2 min 28 s, 30 min, ...), capped at a day. */
export const DEFAULT_RETRY_DELAY_EXPRESSION = "min(86400000, exp(2.5 * (retried + 1)) * 1000)";

export interface MessageInput {
  destination: string;
  headers: MessageHeaders;
  body: string;
  nowMs: number;
}

/** The /v1 job body a message becomes; checkJobInput validates it like any other. */
export function messageJobInput(message: MessageInput): JobCreate {
  const { headers, destination, nowMs } = message;
  // A Not-Before in the past delivers at once, as in QStash (a past `once` is refused otherwise).
  const atMs = Math.max(nowMs, headers.notBeforeMs ?? nowMs);
  return {
    name: `${MESSAGE_JOB_PREFIX}${destination}`.slice(0, 200),
    schedule: { type: "once", at: new Date(atMs).toISOString() },
    target: {
      type: "http",
      url: destination,
      method: headers.method,
      headers: headers.forwardHeaders,
      ...(headers.method === "GET" || message.body === "" ? {} : { body: message.body }),
    },
    retry: {
      max_attempts: headers.retries + 1,
      delay_expression: headers.retryDelayExpression ?? DEFAULT_RETRY_DELAY_EXPRESSION,
    },
    ...(headers.timeoutMs === null ? {} : { timeout: formatDuration(headers.timeoutMs) }),
    // Enforced by the flow gates like any /v1 job's flow_control (across shards and consumers).
    ...(headers.flowControl === null ? {} : { flow_control: flowControlOf(headers.flowControl) }),
    qstash: {
      callback: headers.callback,
      failure_callback: headers.failureCallback,
      labels: headers.labels,
      flow_control:
        headers.flowControl === null
          ? null
          : {
              key: headers.flowControl.key,
              parallelism: headers.flowControl.parallelism,
              rate: headers.flowControl.rate,
              period_seconds: headers.flowControl.periodSeconds,
            },
      deduplication_id: headers.deduplicationId,
      ...callbackHeadersField("callback_headers", headers.callbackHeaders),
      ...callbackHeadersField("failure_callback_headers", headers.failureCallbackHeaders),
    },
  };
}

/** Sub-headers only when there are some, so a message without keeps its stored shape. */
function callbackHeadersField<K extends string>(key: K, headers: Record<string, string>) {
  return Object.keys(headers).length === 0 ? {} : ({ [key]: headers } as Record<K, Record<string, string>>);
}

function flowControlOf(flow: FlowControlHeader) {
  return {
    key: flow.key,
    ...(flow.rate === null ? {} : { rate: flow.rate }),
    ...(flow.parallelism === null ? {} : { parallelism: flow.parallelism }),
    ...(flow.periodSeconds === null ? {} : { period: `${flow.periodSeconds}s` }),
  };
}

/** Field paths of the job body, as the header or part of the request the user wrote. */
const FIELD_HEADERS: [prefix: string, header: string][] = [
  ["target.url", "destination"],
  ["target.method", "Upstash-Method"],
  ["target.body", "body"],
  ["retry", "Upstash-Retries"],
  ["timeout", "Upstash-Timeout"],
  ["schedule", "Upstash-Not-Before"],
  ["qstash.callback", "Upstash-Callback"],
  ["qstash.failure_callback", "Upstash-Failure-Callback"],
  ["qstash.labels", "Upstash-Label"],
  ["qstash.flow_control", "Upstash-Flow-Control-Key"],
  ["flow_control.key", "Upstash-Flow-Control-Key"],
  ["flow_control", "Upstash-Flow-Control-Value"],
  ["qstash.deduplication_id", "Upstash-Deduplication-Id"],
];

/** A job-body refusal named by the header the user sent (`target.headers.x` -> `Upstash-Forward-x`). */
export function headerErrorsOf(errors: readonly FieldError[]): HeaderError[] {
  return errors.map((error) => {
    const forwarded = /^target\.headers\.(.+)$/.exec(error.path);
    if (forwarded?.[1] !== undefined)
      return { header: `Upstash-Forward-${forwarded[1]}`, message: error.message };
    if (error.path === "target.headers") return { header: "Upstash-Forward-*", message: error.message };
    const callback = /^qstash\.(failure_)?callback_headers(?:\.(.+))?$/.exec(error.path);
    if (callback !== null) {
      const prefix = callback[1] === undefined ? "Upstash-Callback" : "Upstash-Failure-Callback";
      return { header: callbackSubHeader(prefix, callback[2]), message: error.message };
    }
    const known = FIELD_HEADERS.find(
      ([prefix]) => error.path === prefix || error.path.startsWith(`${prefix}.`),
    );
    return { header: known?.[1] ?? error.path, message: error.message };
  });
}

/** The sub-header a callback header came from (../callback-headers.ts, read backwards). */
function callbackSubHeader(prefix: string, name: string | undefined): string {
  if (name === undefined) return `${prefix}-Forward-*`;
  if (name === "upstash-feature-set") return `${prefix}-Feature-Set`;
  if (name.startsWith("upstash-workflow-"))
    return `${prefix}-Workflow-${name.slice("upstash-workflow-".length)}`;
  return `${prefix}-Forward-${name}`;
}
