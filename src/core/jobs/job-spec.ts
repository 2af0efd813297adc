import { z } from "zod";
import { durationSchema } from "../common/duration";
import { type DstPolicy, dstPolicySchema } from "../cron/dst";
import { flowControlSchema } from "../load/flow-control";
import { qstashJobSchema } from "../qstash/delivery";
import { type BackoffPolicy, backoffPolicySchema } from "../runs/backoff";
import { debounceSchema } from "../runs/debounce";
import {
  completionModeSchema,
  DEFAULT_HEARTBEAT_TIMEOUT,
  heartbeatTimeoutSchema,
} from "../runs/long-running";
import { type OverlapPolicy, overlapPolicySchema } from "../runs/overlap";
import { parseRetryDelayExpression } from "../runs/retry-delay-expression";
import { JOB_STATUSES } from "../runs/run-state";
import { deliveryWindowSchema } from "../schedules/delivery-window";
import { calendarNameSchema, exclusionSetSchema, MAX_CALENDARS_PER_JOB } from "../schedules/exclusions";
import { flexibleWindowSchema } from "../schedules/flexible-window";
import { type MisfirePolicy, misfirePolicySchema } from "../schedules/misfire";
import {
  type CronSchedule,
  cronScheduleSchema,
  type IntervalSchedule,
  intervalScheduleSchema,
  MAX_ONCE_AT,
  MAX_SCHEDULES_PER_JOB,
  type OnceSchedule,
  onceScheduleSchema,
  type Schedule,
  scheduleSchema,
  schedulesSchema,
} from "../schedules/schedule-spec";
import { type HeaderMapIssue, headerMapSchema, MAX_HEADER_VALUE_BYTES } from "../targets/header-map";
import { bindingTargetSchemas } from "../targets/targets";
import { managedBySchema } from "./managed-by";

// The parts of a job's spec are defined beside the logic that reads them (a schedule in
// schedules/, a retry's backoff in runs/), so those rooms never import the whole job; the job's
// vocabulary stays importable from here.
export type {
  BackoffPolicy,
  CronSchedule,
  DstPolicy,
  IntervalSchedule,
  MisfirePolicy,
  OnceSchedule,
  OverlapPolicy,
  Schedule,
};
export {
  backoffPolicySchema,
  cronScheduleSchema,
  dstPolicySchema,
  intervalScheduleSchema,
  MAX_ONCE_AT,
  MAX_SCHEDULES_PER_JOB,
  misfirePolicySchema,
  onceScheduleSchema,
  overlapPolicySchema,
  scheduleSchema,
  schedulesSchema,
};

/** Largest target body we accept: queue messages are 128 KB and carry headers besides. */
export const MAX_TARGET_BODY_BYTES = 100 * 1024;
export const MAX_BUFFERED_RUNS = 100;

const instant = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });

/** Named calendars of the tenant whose rules exclude instants (see exclusions.ts). */
export const jobCalendarsSchema = z
  .array(calendarNameSchema)
  .max(MAX_CALENDARS_PER_JOB)
  .refine((names) => new Set(names).size === names.length, { message: "must not name a calendar twice" });

export const retryPolicySchema = z.strictObject({
  max_attempts: z.number().int().min(1).max(100).default(3),
  backoff: backoffPolicySchema.default({ initial: "30s", max: "1h", multiplier: 2, jitter: "full" }),
  /** 4xx statuses that should retry anyway (408 and 429 always do). */
  retry_on_status: z.array(z.number().int().min(400).max(499)).max(20).default([]),
  /**
   * A delay in milliseconds as an expression over `retried` (QStash's `Upstash-Retry-Delay`,
   * see retry-delay-expression.ts); when set it replaces `backoff`.
   */
  delay_expression: z
    .string()
    .superRefine((source, ctx) => {
      const parsed = parseRetryDelayExpression(source);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
    })
    .optional(),
});

/** A job status in request and response schemas (the list itself lives in run-state). */
export const jobStatusSchema = z.enum(JOB_STATUSES);

export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** Headers we set on every call: a job may not override them. */
const EDGECRON_HEADERS = new Set(["idempotency-key"]);
/**
 * Hop-by-hop and framing headers (RFC 9110 section 7.6.1, RFC 9112): the runtime owns them, and
 * forwarding one breaks the call (`Expect: 100-continue` made a 200 read as "target answered 100").
 */
const HOP_BY_HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
  "content-length",
  "host",
]);
export const MAX_TARGET_HEADERS = 64;
export const MAX_TARGET_HEADER_VALUE_BYTES = MAX_HEADER_VALUE_BYTES;
export const MAX_TARGET_HEADERS_TOTAL_BYTES = 32 * 1024;

/** Whether edgecron refuses to forward this header (hop-by-hop or framing; `Proxy-*`). */
export function isHopByHopHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return HOP_BY_HOP_HEADERS.has(lower) || lower.startsWith("proxy-");
}

/**
 * A target's own rules on a header map that is well formed (header-map.ts): no reserved or
 * hop-by-hop names, and the count and size limits.
 */
function targetHeaderPolicy(headers: Record<string, string>): HeaderMapIssue[] {
  const issues: HeaderMapIssue[] = [];
  const names = Object.keys(headers);
  if (names.length > MAX_TARGET_HEADERS) {
    issues.push({ path: [], message: `must have at most ${MAX_TARGET_HEADERS} headers` });
  }
  let totalBytes = 0;
  for (const name of names) {
    totalBytes += name.length + (headers[name] ?? "").length;
    const lower = name.toLowerCase();
    const problem = isHopByHopHeader(name)
      ? "is a hop-by-hop or framing header, which edgecron cannot forward"
      : EDGECRON_HEADERS.has(lower) || lower.startsWith("edgecron-")
        ? "is set by edgecron and cannot be overridden"
        : null;
    if (problem !== null) issues.push({ path: [name], message: problem });
  }
  if (totalBytes > MAX_TARGET_HEADERS_TOTAL_BYTES) {
    issues.push({
      path: [],
      message: `must total at most ${MAX_TARGET_HEADERS_TOTAL_BYTES} bytes of names and values`,
    });
  }
  return issues;
}

export const httpTargetSchema = z.strictObject({
  type: z.literal("http").default("http"),
  url: z
    .string()
    .max(2048)
    .refine((value) => URL.canParse(value), { message: "must be an absolute URL" })
    .refine((value) => !URL.canParse(value) || ["http:", "https:"].includes(new URL(value).protocol), {
      message: "must use http or https",
    }),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("POST"),
  // Checked on the field itself (not the object) so that a bad url or method never hides them.
  headers: headerMapSchema(targetHeaderPolicy).default({}),
  body: z
    .unknown()
    .optional()
    .refine((body) => body === undefined || serializedBodyBytes(body) <= MAX_TARGET_BODY_BYTES, {
      message: `must be at most ${MAX_TARGET_BODY_BYTES} bytes`,
    }),
});

/** HTTP (the default when `type` is absent) or a Cloudflare binding (src/core/targets/targets.ts). */
export const targetSchema = z.discriminatedUnion(
  "type",
  [httpTargetSchema, ...bindingTargetSchemas(httpTargetSchema.shape)],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? 'must be one of "http" (the default), "service", "workflow" or "queue"'
        : undefined,
  },
);

/** A string body is sent as is; anything else as JSON. */
export function serializeTargetBody(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  return typeof body === "string" ? body : JSON.stringify(body);
}

function serializedBodyBytes(body: unknown): number {
  return new TextEncoder().encode(serializeTargetBody(body) ?? "").byteLength;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A JSON object of the user's, kept exactly as given (`metadata`). Not z.record: it rebuilds the
 * object by assignment, and assigning a `__proto__` key sets the copy's prototype instead, so the
 * key silently vanished. Its keys are data, `__proto__` and `constructor` included.
 */
export const jsonObjectSchema = z
  .unknown()
  .refine(isPlainObject, { message: "must be an object" })
  .meta({ type: "object", additionalProperties: {} }) as unknown as z.ZodType<Record<string, unknown>>;

/** A job's `priority` range (1 goes first), and the default in its middle. */
export const JOB_PRIORITY_HIGHEST = 1;
export const JOB_PRIORITY_LOWEST = 5;
export const DEFAULT_JOB_PRIORITY = 3;

export const jobCreateSchema = z.strictObject({
  name: z.string().min(1).max(200),
  schedule: scheduleSchema.optional(),
  schedules: schedulesSchema.optional(),
  calendars: jobCalendarsSchema.default([]),
  exclude: exclusionSetSchema.nullable().default(null),
  target: targetSchema,
  retry: retryPolicySchema.default({
    max_attempts: 3,
    backoff: { initial: "30s", max: "1h", multiplier: 2, jitter: "full" },
    retry_on_status: [],
  }),
  misfire: misfirePolicySchema.default({ policy: "fire_now", grace: "60s", max_catch_up: 10 }),
  overlap: overlapPolicySchema.default("allow"),
  timeout: durationSchema({ minMs: 1_000, maxMs: 15 * 60_000 }).default("30s"),
  completion: completionModeSchema.default("response"),
  heartbeat_timeout: heartbeatTimeoutSchema.default(DEFAULT_HEARTBEAT_TIMEOUT),
  start_at: instant.nullable().default(null),
  end_at: instant.nullable().default(null),
  max_runs: z.number().int().min(1).max(1_000_000_000).nullable().default(null),
  /**
   * Orders the tenant's own runs when more are due than its share of the dispatch window sends at
   * once: 1 first, 5 last. It never takes another tenant's share.
   */
  priority: z.number().int().min(JOB_PRIORITY_HIGHEST).max(JOB_PRIORITY_LOWEST).default(DEFAULT_JOB_PRIORITY),
  /** Spread each fire time by a deterministic offset in [0, jitter) per (job, instant). */
  jitter: durationSchema({ maxMs: 3_600_000 }).nullable().default(null),
  /** Local times and weekdays the job may be called at (src/core/schedules/delivery-window.ts). */
  window: deliveryWindowSchema.nullable().default(null),
  /** Each instant fires at a point of [instant, instant + max] (src/core/schedules/flexible-window.ts). */
  flexible_window: flexibleWindowSchema.nullable().default(null),
  pause_after_failures: z.number().int().min(1).max(1000).nullable().default(null),
  on_failure: z
    .string()
    .max(2048)
    .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
      message: "must be an absolute http(s) URL",
    })
    .nullable()
    .default(null),
  alert_after: durationSchema({ minMs: 1_000 }).default("2m"),
  /** Runs of every job with this key share its limits; over them, runs wait (src/core/load/flow-control.ts). */
  flow_control: flowControlSchema.nullable().default(null),
  /** Triggers of one key inside `period` become one run (src/core/runs/debounce.ts). */
  debounce: debounceSchema.nullable().default(null),
  metadata: jsonObjectSchema.default({}),
  /** The schedule file that manages the job (`edgecron apply`; src/core/schedule-file/). */
  managed_by: managedBySchema.nullable().optional(),
  /**
   * Set by the QStash-compatible /v2 API (qstash-message.ts, qstash-delivery.ts); absent on /v1
   * jobs. Present: calls are signed and headed as QStash's, callbacks get QStash's body.
   */
  qstash: qstashJobSchema.optional(),
});

export type JobCreate = z.input<typeof jobCreateSchema>;
/** A validated job definition with defaults filled in: what D1 stores and shards execute. */
export type JobSpec = z.output<typeof jobCreateSchema>;
export type JobTarget = JobSpec["target"];
export type HttpTarget = Extract<JobTarget, { type: "http" }>;
export type ServiceTarget = Extract<JobTarget, { type: "service" }>;
export type BindingTarget = Exclude<JobTarget, { type: "http" }>;

/**
 * The top-level fields of a job body that are valid on their own, defaults filled: what a failed
 * whole-body parse still knows, so the checks that need several fields or `now` can run anyway
 * and one answer names every problem.
 *
 * @example validJobFields({ name: "", start_at: "2026-01-01T00:00:00Z" })
 * // { start_at: "2026-01-01T00:00:00Z", retry: {...defaults}, misfire: {...}, ... } (no name)
 */
export function validJobFields(input: unknown): Partial<JobSpec> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return {};
  const body = input as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(jobCreateSchema.shape)) {
    const result = schema.safeParse(Object.hasOwn(body, key) ? body[key] : undefined);
    if (result.success) fields[key] = result.data;
  }
  return fields as Partial<JobSpec>;
}

/** The target's URL when it is valid on its own, even if another target field is not. */
export function validTargetUrl(input: unknown): string | null {
  if (typeof input !== "object" || input === null) return null;
  const target = (input as Record<string, unknown>).target;
  if (typeof target !== "object" || target === null) return null;
  const type = (target as Record<string, unknown>).type;
  if (type !== undefined && type !== "http") return null;
  const result = httpTargetSchema.shape.url.safeParse((target as Record<string, unknown>).url);
  return result.success ? result.data : null;
}
