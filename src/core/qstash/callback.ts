// The body QStash posts to `Upstash-Callback` after each delivery attempt and to
// `Upstash-Failure-Callback` once a message ends in the dead-letter queue (upstash/docs
// qstash/features/callbacks.mdx): the target's answer plus the source message, bodies base64.
import { base64OfText } from "../common/encoding";
import type { QstashRunContext } from "./delivery";
import { qstashMessageId } from "./delivery";

/** What the target answered (null status: no answer, e.g. a timeout or a refused address). */
export interface TargetAnswer {
  status: number | null;
  headers: Record<string, string[]>;
  /** The answer's body, base64 (the first bytes we kept of it). */
  bodyBase64: string;
}

export interface CallbackSource {
  context: QstashRunContext;
  jobId: string;
  runId: string;
  attempt: number;
  /** The run's instant: the message's notBefore. */
  scheduledAtMs: number;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The callback body of one attempt; a failure callback passes `dlqId`.
 * @example qstashCallbackBody(answer, source) // { status: 200, retried: 0, maxRetries: 3, sourceMessageId: "job_1", ... }
 */
export function qstashCallbackBody(answer: TargetAnswer, source: CallbackSource, dlqId?: string) {
  const { delivery } = source.context;
  const isScheduleFire = Boolean(delivery.schedule_id);
  return {
    status: answer.status ?? 0,
    header: answer.headers,
    body: answer.bodyBase64,
    retried: Math.max(0, source.attempt - 1),
    maxRetries: source.context.maxRetries,
    sourceMessageId: qstashMessageId(delivery, source),
    url: source.url,
    method: source.method,
    sourceHeader: Object.fromEntries(Object.entries(source.headers).map(([name, value]) => [name, [value]])),
    sourceBody: base64OfText(source.body),
    notBefore: source.scheduledAtMs,
    createdAt: isScheduleFire ? source.scheduledAtMs : source.context.jobCreatedAtMs,
    ...(delivery.schedule_id ? { scheduleId: delivery.schedule_id } : {}),
    ...(delivery.caller_ip ? { callerIP: delivery.caller_ip } : {}),
    ...(dlqId === undefined ? {} : { dlqId }),
  };
}
