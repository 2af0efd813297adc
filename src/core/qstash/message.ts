// What a job created through the QStash-compatible /v2 API carries beyond a /v1 job: the
// QStash-only message options, stored on the job (`spec.qstash`) so the shard and the delivery
// path read them where they run. Its presence marks the job as QStash-format: calls to its target
// carry the `Upstash-*` headers and signature.
import { z } from "zod";
import { headerMapSchema } from "../targets/header-map";

const callbackUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an absolute http(s) URL",
  });

/** `Upstash-Flow-Control-Key` with its value `parallelism=N, rate=N, period=Ns`, held as sent. */
export const qstashFlowControlSchema = z.strictObject({
  key: z.string().min(1).max(200),
  parallelism: z.number().int().min(1).nullable().default(null),
  rate: z.number().int().min(1).nullable().default(null),
  /** Seconds the rate is counted over. */
  period_seconds: z.number().int().min(1).nullable().default(null),
});

export const MAX_QSTASH_LABELS = 10;

export const qstashMessageSchema = z.strictObject({
  /** Called with the target's answer after a delivery (`Upstash-Callback`). */
  callback: callbackUrl.nullable().default(null),
  /** Called when the message is dead-lettered (`Upstash-Failure-Callback`). */
  failure_callback: callbackUrl.nullable().default(null),
  labels: z.array(z.string().min(1).max(100)).max(MAX_QSTASH_LABELS).default([]),
  flow_control: qstashFlowControlSchema.nullable().default(null),
  /** `Upstash-Deduplication-Id` as sent (or the content hash), for reads. */
  deduplication_id: z.string().max(255).nullable().default(null),
  /** The headers each callback is called with (`Upstash-Callback-*` sub-headers); absent = none. */
  callback_headers: headerMapSchema().optional(),
  failure_callback_headers: headerMapSchema().optional(),
});

export type QstashMessage = z.output<typeof qstashMessageSchema>;
export type QstashFlowControl = z.output<typeof qstashFlowControlSchema>;
