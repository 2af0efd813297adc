// What makes a job deliver in QStash's format (jobs created through /v2): the job's `qstash`
// field, and the headers every call to its target carries, so an endpoint written for QStash
// (its `Receiver`, its `Upstash-*` headers) accepts edgecron's calls unchanged.
import { z } from "zod";

export const QSTASH_USER_AGENT = "Upstash-QStash";
/** Longest schedule id we store (QStash accepts ids of this order; the client does not check). */
export const MAX_SCHEDULE_ID_LENGTH = 128;

const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an absolute http(s) URL",
  });

/**
 * A job's QStash delivery settings. Present: every call is signed with `Upstash-Signature` and
 * the callbacks below receive each outcome in QStash's callback body.
 */
export const qstashDeliverySchema = z.strictObject({
  /** The /v2 message id every attempt carries; unset: each fire is its own message (its run id). */
  message_id: z.string().min(1).max(MAX_SCHEDULE_ID_LENGTH).nullable().default(null),
  /** Set on jobs made by POST /v2/schedules: sent as `Upstash-Schedule-Id`. */
  schedule_id: z.string().min(1).max(MAX_SCHEDULE_ID_LENGTH).nullable().default(null),
  /** Receives every outcome of a call (2xx included), as QStash's callback body. */
  callback: httpUrl.nullable().default(null),
  /** Receives the last failed outcome of a run that ends in the dead-letter queue. */
  failure_callback: httpUrl.nullable().default(null),
  /** The address the /v2 request came from (`Upstash-Caller-IP`, `callerIP`). */
  caller_ip: z.string().max(64).nullable().default(null),
});

export type QstashDelivery = z.output<typeof qstashDeliverySchema>;

/**
 * The QStash message id of one run: the one the publish answered with when the job has one,
 * else the run's own id (each fire of a schedule is a new message; its retries keep it).
 * @example qstashMessageId({ message_id: null, ... }, "run_1") === "run_1"
 */
export function qstashMessageId(delivery: Pick<QstashDelivery, "message_id">, runId: string): string {
  return delivery.message_id ?? runId;
}

/**
 * The `Upstash-*` headers (lower-case names) of one call, beside its signature: the message id,
 * how many times it was retried before (the first call is 0), and the schedule and caller when
 * known. QStash sends `User-Agent: Upstash-QStash`; endpoints sometimes check it.
 * @example qstashHeaders(delivery, { runId: "run_1", attempt: 2 })
 * // { "upstash-message-id": "run_1", "upstash-retried": "1", "user-agent": "Upstash-QStash" }
 */
export function qstashHeaders(
  delivery: QstashDelivery,
  run: { runId: string; attempt: number },
): Record<string, string> {
  const headers: Record<string, string> = {
    "upstash-message-id": qstashMessageId(delivery, run.runId),
    "upstash-retried": String(Math.max(0, run.attempt - 1)),
    "user-agent": QSTASH_USER_AGENT,
  };
  if (delivery.schedule_id !== null) headers["upstash-schedule-id"] = delivery.schedule_id;
  if (delivery.caller_ip !== null) headers["upstash-caller-ip"] = delivery.caller_ip;
  return headers;
}
