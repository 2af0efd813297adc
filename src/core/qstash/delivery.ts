// What makes a job deliver in QStash's format (jobs created through /v2): the job's `qstash`
// field, and the headers every call to its target carries, so an endpoint written for QStash
// (its `Receiver`, its `Upstash-*` headers) accepts edgecron's calls unchanged.
import { z } from "zod";
import { qstashMessageSchema } from "./message";

export const QSTASH_USER_AGENT = "Upstash-QStash";
/** Longest schedule id we store (QStash accepts ids of this order; the client does not check). */
export const MAX_SCHEDULE_ID_LENGTH = 128;

/**
 * A /v2 job's `qstash` field: the message options the /v2 routes store (qstash-message.ts) and
 * what its deliveries carry. The delivery fields are optional so a message built without them
 * stays valid: absent reads as null.
 */
export const qstashJobSchema = qstashMessageSchema.extend({
  /** Set on jobs made by POST /v2/schedules: sent as `Upstash-Schedule-Id`. */
  schedule_id: z.string().min(1).max(MAX_SCHEDULE_ID_LENGTH).nullable().optional(),
  /** The address the /v2 request came from (`Upstash-Caller-IP`, the callbacks' `callerIP`). */
  caller_ip: z.string().max(64).nullable().optional(),
  /** Set on the messages of a publish to a URL group: sent as `Upstash-Topic-Name`. */
  topic_name: z.string().min(1).max(94).nullable().optional(),
  /** The group endpoint's own name, when it has one (the `Message`'s `endpointName`). */
  endpoint_name: z.string().min(1).max(200).nullable().optional(),
});

export type QstashDelivery = z.output<typeof qstashJobSchema>;

/**
 * The QStash message id of one run: a published message is its job (the id publish answered);
 * each fire of a schedule is a new message, its run (whose retries keep it).
 * @example qstashMessageId({ schedule_id: "scd_1" }, { jobId: "job_1", runId: "run_1" }) === "run_1"
 */
export function qstashMessageId(
  delivery: Pick<QstashDelivery, "schedule_id">,
  run: { jobId: string; runId: string },
): string {
  return delivery.schedule_id ? run.runId : run.jobId;
}

/**
 * The `Upstash-*` headers (lower-case names) of one call, beside its signature: the message id,
 * how many times it was retried before (the first call is 0), and the schedule and caller when
 * known. QStash sends `User-Agent: Upstash-QStash`; endpoints sometimes check it.
 * @example qstashHeaders({ schedule_id: "scd_1", ... }, { jobId: "job_1", runId: "run_1", attempt: 2 })
 * // { "upstash-message-id": "run_1", "upstash-schedule-id": "scd_1", "upstash-retried": "1", "user-agent": "Upstash-QStash" }
 */
export function qstashHeaders(
  delivery: QstashDelivery,
  run: { jobId: string; runId: string; attempt: number },
): Record<string, string> {
  const headers: Record<string, string> = {
    "upstash-message-id": qstashMessageId(delivery, run),
    "upstash-retried": String(Math.max(0, run.attempt - 1)),
    "user-agent": QSTASH_USER_AGENT,
  };
  if (delivery.schedule_id) headers["upstash-schedule-id"] = delivery.schedule_id;
  if (delivery.caller_ip) headers["upstash-caller-ip"] = delivery.caller_ip;
  if (delivery.topic_name) headers["upstash-topic-name"] = delivery.topic_name;
  return headers;
}

/** What a /v2 run's calls and callbacks need of its job: carried by its claim and dead letter. */
export interface QstashRunContext {
  delivery: QstashDelivery;
  /** `maxRetries` of the callback body: attempts after the first. */
  maxRetries: number;
  /** `createdAt` of a published message (a schedule's fires are created at their instant). */
  jobCreatedAtMs: number;
}

/**
 * The context of a job's runs, or undefined for a /v1 job.
 * @example qstashRunContextOf({ qstash, retry: { max_attempts: 4 } }, 0) // { delivery: qstash, maxRetries: 3, jobCreatedAtMs: 0 }
 */
export function qstashRunContextOf(
  spec: { qstash?: QstashDelivery | undefined; retry: { max_attempts: number } },
  jobCreatedAtMs: number,
): QstashRunContext | undefined {
  if (spec.qstash === undefined) return undefined;
  return { delivery: spec.qstash, maxRetries: spec.retry.max_attempts - 1, jobCreatedAtMs };
}
