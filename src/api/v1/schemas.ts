// Every request and response shape of the v1 API as zod schemas: the routes validate with them,
// the OpenAPI document is generated from them (src/api/v1/openapi), and the typed client takes its
// types from them (type-only imports). Imports only zod and src/core, never Cloudflare or Hono.
import { z } from "zod";
import { ALERT_DELIVERIES, ALERT_KINDS, ALERT_RESOLUTIONS, ALERT_STATES } from "../../core/alerts/alerts";
import { ERROR_CODE_LIST } from "../../core/common/errors";
import { filterText } from "../../core/common/filter-values";
import { jobCreateSchema } from "../../core/jobs/job-spec";
import { managedBySchema } from "../../core/jobs/managed-by";
import { previewInputSchema } from "../../core/jobs/preview";
import { FLOW_KEY_MESSAGE, FLOW_KEY_PATTERN } from "../../core/load/flow-control";
import { HOST_SIGNALS } from "../../core/load/host-throttle";
import { HOLD_CAUSES, WAIT_CAUSES } from "../../core/load/run-waits";
import { tenantLimitsPutSchema as tenantLimitsPut } from "../../core/load/tenant-limits";
import { debounceKeySchema } from "../../core/runs/debounce";
import { JOB_STATUSES, RUN_STATES } from "../../core/runs/run-state";
import { OUTSIDE_WINDOW_FOLDED_REASON, OUTSIDE_WINDOW_REASON } from "../../core/schedules/delivery-window";
import { calendarCreateSchema, calendarReplaceSchema } from "../../core/schedules/exclusions";
import { SEARCH_STOP_REASONS } from "../../core/schedules/search-bound";

export { completionBodySchema } from "../../core/runs/long-running";
export { MAX_BACKFILL_INSTANTS } from "../../core/schedules/backfill";

export const MAX_BATCH_JOBS = 1000;
export { MAX_PREVIEW_COUNT } from "../../core/jobs/preview";
export const MAX_NEXT_FIRES = 100;

const time = z.iso.datetime().meta({ example: "2026-12-01T09:00:00.000Z" });
const nullableTime = time.nullable();
const requestInstant = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });
const count = z.number().int().min(0);

// --- errors ---------------------------------------------------------------------------------

export const fieldErrorSchema = z.object({ path: z.string(), message: z.string() });

export const problemSchema = z
  .object({
    type: z.string().meta({ example: "urn:edgecron:problem:validation_failed" }),
    title: z.string().meta({ example: "Bad Request" }),
    status: z.number().int().meta({ example: 400 }),
    detail: z.string(),
    code: z.enum(ERROR_CODE_LIST),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .meta({ description: "An RFC 9457 problem; `code` is one of docs/API.md's error table" });

// --- query strings --------------------------------------------------------------------------

const LIMIT_MESSAGE = "must be an integer from 1 to 200";

/**
 * Decimal digits only: a plain coerce would also take `0x10`, `1e2` or ` 5` (Number() parses
 * them), so a typo could silently page by a different size than the client meant.
 */
export const limitSchema = z
  .string()
  .regex(/^\d{1,3}$/, LIMIT_MESSAGE)
  .transform(Number)
  .pipe(z.number().int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(200, LIMIT_MESSAGE))
  .default(50)
  .meta({ description: "Page size, 1 to 200 (default 50)", example: "50" });

const cursor = (maxLength: number) =>
  z.string().max(maxLength).optional().meta({ description: "`next_cursor` of the previous page" });

export const pageQuerySchema = z.strictObject({ limit: limitSchema, cursor: cursor(400) });
export const jobStatusSchema = z.enum(JOB_STATUSES);
export const runStateSchema = z.enum(RUN_STATES);
export const listJobsQuerySchema = z.strictObject({
  status: jobStatusSchema.optional(),
  name: filterText(200).optional().meta({ description: "Name prefix (not empty)" }),
  limit: limitSchema,
  cursor: cursor(200),
});
const NEXT_MESSAGE = `must be an integer from 0 to ${MAX_NEXT_FIRES}`;
export const getJobQuerySchema = z.object({
  // Digits only, as `limit`: z.coerce read "" as 0 and "1e2" as 100.
  next: z
    .string()
    .regex(/^\d{1,3}$/, NEXT_MESSAGE)
    .transform(Number)
    .pipe(z.number().int().min(0, NEXT_MESSAGE).max(MAX_NEXT_FIRES, NEXT_MESSAGE))
    .default(5)
    .meta({ description: `How many next_fire_times (0 to ${MAX_NEXT_FIRES})`, example: "5" }),
});
export const listRunsQuerySchema = pageQuerySchema.extend({
  state: runStateSchema.optional(),
  job_id: filterText(100).optional(),
});
export const listDeadLettersQuerySchema = pageQuerySchema.extend({ job_id: filterText(100).optional() });
export const alertKindSchema = z.enum(ALERT_KINDS);
export const alertStateSchema = z.enum(ALERT_STATES);
export const listAlertsQuerySchema = pageQuerySchema.extend({
  kind: alertKindSchema.optional(),
  state: alertStateSchema.optional().meta({
    description: "open (nobody acted), acknowledged (seen, unresolved) or resolved",
  }),
});
export const listApiKeysQuerySchema = z.strictObject({ tenant_id: filterText(100) });

// --- request bodies -------------------------------------------------------------------------

const webhookUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an absolute http(s) URL",
  });

export const tenantCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).meta({ example: "acme" }),
  alert_webhook_url: webhookUrl.nullable().optional(),
});
export const tenantPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  alert_webhook_url: webhookUrl.nullable().optional(),
});
export const apiKeyCreateSchema = z.strictObject({
  tenant_id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(200).nullable().optional(),
});
/** The preview's body: the core's (src/core/jobs/preview.ts), checked as a create is. */
export const previewRequestSchema = previewInputSchema;
export const backfillRequestSchema = z.strictObject({ from: requestInstant, to: requestInstant });
/** What the batch route parses first; each item is then checked on its own as a JobCreate. */
export const jobBatchSchema = z.strictObject({
  jobs: z.array(z.unknown()).min(1).max(MAX_BATCH_JOBS, `must hold at most ${MAX_BATCH_JOBS} jobs`),
});
/** For the document: what an item of a batch must be. */
export const jobBatchDocSchema = z.strictObject({
  jobs: z.array(jobCreateSchema).min(1).max(MAX_BATCH_JOBS),
});
/** For the document: a JSON Merge Patch of the create fields, plus the version it replaces. */
export const jobPatchDocSchema = jobCreateSchema
  .partial()
  .extend({ version: z.number().int().min(1).optional() });

// --- responses ------------------------------------------------------------------------------

/** Where a bound stopped a search for instants that run (src/core/schedules/search-bound.ts). */
export const searchStopSchema = z
  .object({
    reason: z.enum(SEARCH_STOP_REASONS).meta({
      description:
        "horizon: no instant left to run within 5 years of the previous one; instant_limit: 25,000 instants skipped by exclusions or the delivery window were examined",
    }),
    searched_through: time.meta({
      description: "The search examined the schedule up to here; later instants may run",
    }),
    detail: z.string(),
  })
  .meta({
    description:
      "Present only when the list is shorter than asked because the search for the next instant that runs (behind exclusions or a delivery window) stopped at its bound",
  });

export const jobSchema = jobCreateSchema.extend({
  id: z.string().meta({ example: "job_01JDXS3M0000000000000000AB" }),
  status: jobStatusSchema,
  version: z.number().int(),
  shard: z.number().int(),
  next_fire_times: z.array(time),
  next_fire_times_stopped: searchStopSchema.optional(),
  created_at: time,
  updated_at: time,
});

export const tenantSchema = z.object({
  id: z.string().meta({ example: "ten_01JDXS3M0000000000000000AB" }),
  name: z.string(),
  alert_webhook_url: z.string().nullable(),
  signing_secret: z.string(),
  signing_secret_next: z.string().nullable(),
  created_at: time,
  suspended_at: time.nullable().meta({
    description: "When an admin suspended the tenant (nothing of it runs); null: not suspended",
  }),
});

const limitValue = z.number().int().nullable().meta({ description: "null: no limit" });
/** A tenant's limits as they apply now (its overrides over the deployment's defaults). */
export const tenantLimitsSchema = z.object({
  tenant_id: z.string(),
  active_jobs: limitValue,
  creates_per_second: limitValue,
  triggers_per_second: limitValue,
  concurrent_calls: limitValue,
  weight: z.number().int().min(1).meta({
    description:
      "The tenant's weight in the fair share of a saturated dispatch window (default 1): a weight-2 tenant is sent about twice a weight-1 tenant's runs",
  }),
  /** The limits this tenant overrides (and `weight` when set); the rest are the deployment's defaults. */
  overridden: z.array(z.string()),
  defaults: z.object({
    active_jobs: limitValue,
    creates_per_second: limitValue,
    triggers_per_second: limitValue,
    concurrent_calls: limitValue,
    weight: z.number().int().min(1),
  }),
  /** The tenant's dispatch gate now (null when it has no trigger or call limit). */
  dispatch: z.object({ waiting: count, in_flight: count, triggers_in_window: count }).nullable().meta({
    description: "Runs waiting for the tenant's own limits, calls in flight, starts in the last second",
  }),
});
/** PUT replaces the overrides: a positive integer, null for no limit, absent for the default. */
export const tenantLimitsPutSchema = tenantLimitsPut;

/** A flow-control key's state (GET /v1/flow-control/{key}). */
export const flowControlStateSchema = z.object({
  key: z.string(),
  waiting: count.meta({ description: "Runs due and waiting for a permit, as their shards last reported" }),
  in_flight: count.meta({ description: "Calls holding a parallelism permit" }),
  rate_count: count.meta({ description: "Runs started in the current rate window" }),
  rate_period_start: time.meta({ description: "When the current rate window began" }),
  limits: z
    .object({
      rate: z.number().int().nullable(),
      period: z.string(),
      parallelism: z.number().int().nullable(),
    })
    .nullable()
    .meta({ description: "The limits the latest run of the key carried; null: no run has asked yet" }),
  updated_at: nullableTime,
});
export const throttledHostSchema = z.object({
  origin: z.string().meta({ example: "https://api.example.com" }),
  limit: count.meta({
    description: "Calls allowed in flight to the host now (grows back by one per window of 2xx)",
  }),
  in_flight: count.meta({ description: "Calls holding one of the host's permits" }),
  waiting: count.meta({ description: "Runs due and waiting for the host, as their shards last reported" }),
  paused_until: nullableTime.meta({
    description: "No call starts before this (the host's Retry-After); null: not paused",
  }),
  last_signal: z.enum(HOST_SIGNALS).meta({ description: "What the host last answered that slowed it down" }),
  last_signal_at: time,
});
export const flowControlParams = z.object({
  key: z
    .string()
    .regex(FLOW_KEY_PATTERN, FLOW_KEY_MESSAGE)
    .meta({ param: { name: "key", in: "path" }, example: "billing-api" }),
});

/** A key as listed: never the secret. */
export const apiKeyListedSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string().nullable(),
  key_prefix: z.string(),
  created_at: time,
  revoked_at: nullableTime,
});
export const apiKeySchema = apiKeyListedSchema.extend({
  key: z.string().meta({ description: "Shown once, in the create response only", example: "ek_3f9a..." }),
});
export const apiKeyRevokedSchema = z.object({ id: z.string(), revoked_at: time });

export const runEventSchema = z.looseObject({
  state: runStateSchema,
  at: time,
  reason: z.string(),
  attempt: z.number().int(),
});

export const runSchema = z.object({
  id: z.string(),
  job_id: z.string(),
  kind: z.enum(["schedule", "trigger", "backfill", "catch_up"]),
  scheduled_at: time,
  idempotency_key: z.string(),
  state: runStateSchema,
  attempt: z.number().int(),
  max_attempts: z.number().int(),
  fence: z.number().int().nullable(),
  job_version: z.number().int(),
  target_status: z.number().int().nullable(),
  error: z.string().nullable(),
  lateness_ms: z.number().int().nullable(),
  lateness: z
    .object({
      scheduler_ms: z.number().int(),
      policy_ms: z.number().int(),
      policy: z.enum(HOLD_CAUSES).nullable(),
    })
    .nullable()
    .meta({
      description:
        "lateness_ms split: the scheduler's own part (from when the run could go out to its claim) and what its job asked for (policy: overlap, flow_control, tenant_limits, backfill, catch_up, misfire); null before the claim",
    }),
  waiting: z
    .object({ cause: z.enum(WAIT_CAUSES), reason: z.string(), since: nullableTime })
    .nullable()
    .meta({
      description:
        "Why a run that has not gone out waits (cause: instant, overlap, flow_control, tenant_limits, tenant_share, retry_backoff, dispatch), in words and since when; null once it went out",
    }),
  duration_ms: z.number().int().nullable(),
  next_attempt_at: nullableTime,
  events: z.array(runEventSchema),
  /** Long-running runs: when the target accepted the attempt, its last heartbeat, its result. */
  accepted_at: nullableTime,
  last_heartbeat_at: nullableTime,
  result: z
    .unknown()
    .meta({ description: "What a long-running target reported (JSON, at most 4 KB), else null" }),
  triggers_folded: z.number().int().meta({
    description:
      "Debounced triggers folded into this run beyond the one that started it (the job's `debounce`); 0 otherwise",
  }),
  trace_id: z.string().meta({
    description:
      "The run's OpenTelemetry trace id (32 hex digits, derived from the run id): its spans in your tracing tool, and the trace the target continues from `traceparent`",
  }),
  created_at: time,
  updated_at: time,
});

export const deadLetterSchema = z.object({
  id: z.string(),
  job_id: z.string(),
  run_id: z.string(),
  attempt: z.number().int(),
  scheduled_at: time,
  reason: z.string(),
  last_error: z.string().nullable(),
  target_status: z.number().int().nullable(),
  payload: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
  }),
  created_at: time,
  redriven_at: nullableTime,
});

export const alertSchema = z.object({
  id: z.string(),
  job_id: z.string().nullable(),
  run_id: z.string().nullable(),
  kind: alertKindSchema,
  message: z.string(),
  details: z.unknown(),
  created_at: time,
  state: alertStateSchema,
  delivery: z.enum(ALERT_DELIVERIES).meta({
    description: "pending, delivered, failed (retried for an hour) or none (no webhook or on_failure URL)",
  }),
  delivered_at: nullableTime,
  delivery_error: z.string().nullable(),
  acknowledged_at: nullableTime,
  resolved_at: nullableTime,
  resolution: z.enum(ALERT_RESOLUTIONS).nullable().meta({
    description:
      "job_fired_again (a missed_run alert whose job fired since), throttle_ended (a tenant_throttled alert whose wait ended) or operator",
  }),
});

const percentiles = z.object({
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p99: z.number().nullable(),
  count,
});

export const statsSchema = z.object({
  jobs_by_status: z.partialRecord(jobStatusSchema, count),
  runs_by_state: z.partialRecord(runStateSchema, count),
  per_minute: z.array(z.object({ minute: time, triggers: count, failures: count })),
  lateness_ms: percentiles.meta({
    description: "From each run's fire time to its claim: the scheduler's part and its job's together",
  }),
  scheduler_lateness_ms: percentiles.meta({
    description:
      "The scheduler's own part of each run's lateness: from when the run could go out (its fire time, or the end of what its job asked for) to its claim",
  }),
  policy_wait_ms: percentiles
    .extend({
      by_cause: z.partialRecord(z.enum(HOLD_CAUSES), percentiles).meta({
        description:
          "overlap (buffer_one/buffer_all), flow_control (the job's key), tenant_limits, backfill, catch_up, misfire",
      }),
    })
    .meta({
      description:
        "What the jobs asked for, over the runs it made late: an overlap buffer, flow control or tenant limits holding the run, or a backfill, catch-up or misfire fired late on purpose",
    }),
  share_wait: z
    .object({
      throttled: z.boolean(),
      waiting_runs: count,
      waiting_since: nullableTime,
      shards: count,
    })
    .meta({
      description:
        "Runs due now and waiting in their shards for the tenant's share of a full dispatch window (other tenants' work holds the rest): `throttled` while any waits past a second, since `waiting_since` (the oldest's due instant), on `shards` shards. Not counted: runs a flow-control key or the tenant's own limits hold",
    }),
});

export const batchResultSchema = z.object({
  created: count,
  failed: count,
  results: z.array(
    z.union([
      z.object({ index: count, status: z.literal(201), job: jobSchema }),
      z.object({ index: count, status: z.literal(400), error: problemSchema }),
    ]),
  ),
});

export const triggerResultSchema = z.object({
  run_id: z.string(),
  job_id: z.string(),
  scheduled_at: time,
  folded: z.boolean().meta({
    description: "True when the trigger folded into a run an earlier trigger started (the job's `debounce`)",
  }),
  fire_at: time.meta({
    description: "When the run fires (a trailing debounce: `period` after the last trigger)",
  }),
});
export const triggerRequestSchema = z.strictObject({
  debounce_key: debounceKeySchema.optional().meta({
    description: "Folds under this key instead of the job's `debounce.key` (needs `debounce` on the job)",
  }),
});
export const backfillResultSchema = z.object({
  created: count,
  skipped: count,
  run_ids: z.array(z.string()),
});
export const retryResultSchema = z.object({ run_id: z.string(), attempt: z.number().int() });
export const completeResultSchema = retryResultSchema.extend({
  state: z.enum(["SUCCEEDED", "RETRYING", "DEAD_LETTERED"]),
});
export const heartbeatResultSchema = retryResultSchema.extend({ lease_expires_at: time });
export const redriveResultSchema = retryResultSchema.extend({ dead_letter_id: z.string() });
export const previewResultSchema = z.object({
  fire_times: z.array(time),
  excluded: z.array(time).meta({ description: "Instants the exclusions left out, up to the last fire time" }),
  fires: z
    .array(z.object({ scheduled_at: time, fire_at: time }))
    .optional()
    .meta({ description: "With `window` or `flexible_window`: each run's instant and where it fires" }),
  skipped: z
    .array(
      z.object({ scheduled_at: time, reason: z.enum([OUTSIDE_WINDOW_REASON, OUTSIDE_WINDOW_FOLDED_REASON]) }),
    )
    .optional()
    .meta({ description: "With `window`: the instants it skips (or folds into a deferred run)" }),
  stopped: searchStopSchema.optional(),
});
export const meSchema = z.object({ role: z.enum(["admin", "tenant"]), tenant_id: z.string().nullable() });
export const healthSchema = z.object({
  status: z.literal("ok"),
  tzdata: z.string().meta({
    description: "The tz database fire times are computed with: a fingerprint of the runtime's zone rules",
    example: "intl-2121a3338ac8",
  }),
});
export const shardTzdataSchema = z.object({
  shard: z.number().int(),
  timers_version: z.string().nullable().meta({ description: "The tz database the shard's timers use" }),
  rederiving_to: z
    .string()
    .nullable()
    .meta({ description: "The version timers are being re-derived for; null when none is running" }),
  jobs_done: count,
  jobs_changed: count,
  jobs_total: count,
  started_at: nullableTime,
  finished_at: nullableTime,
});
export const tzdataStatusSchema = z.object({
  tzdata: z.string().meta({ description: "The runtime's tz database version (as /healthz names it)" }),
  up_to_date: z.boolean().meta({ description: "Every shard's timers use it" }),
  shards: z.array(shardTzdataSchema),
});
export const openApiDocumentSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: "This OpenAPI 3.1 document" });

const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });
const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const jobPageSchema = page(jobSchema);
export const flowControlPageSchema = page(flowControlStateSchema).extend({
  hosts: z.array(throttledHostSchema).meta({
    description:
      "Destination hosts the tenant's calls are throttled at (they answered 429, 503 or timed out), in origin order, at most 50",
  }),
});
export const runPageSchema = page(runSchema);
export const deadLetterPageSchema = page(deadLetterSchema);
export const alertPageSchema = page(alertSchema);
export const tenantListSchema = list(tenantSchema);
export const apiKeyListSchema = list(apiKeyListedSchema);

// --- calendars --------------------------------------------------------------------------------

export { calendarCreateSchema, calendarReplaceSchema };
export const calendarParams = z.object({
  name: z.string().meta({ param: { name: "name", in: "path" }, example: "uk-holidays" }),
});
export const calendarSchema = calendarReplaceSchema.extend({
  name: z.string().meta({ example: "uk-holidays" }),
  revision: z.number().int().meta({ description: "Grows by one with every replace" }),
  managed_by: managedBySchema.nullable().meta({
    description: "The schedule file that manages the calendar (`edgecron apply`); null: none",
  }),
  created_at: time,
  updated_at: time,
});
export const calendarDetailSchema = calendarSchema.extend({
  jobs: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .meta({ description: "Jobs that name it (at most 100)" }),
});
export const calendarListSchema = list(calendarSchema);
