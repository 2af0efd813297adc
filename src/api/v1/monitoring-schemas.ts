// The v1 API's answers for watching a deployment: alerts, stats, who is asking, health, the tz database.
import { z } from "zod";
import { ALERT_DELIVERIES, ALERT_RESOLUTIONS } from "../../core/alerts/alerts";
import { HOLD_CAUSES } from "../../core/load/run-waits";
import { alertKindSchema, alertStateSchema, jobStatusSchema, runStateSchema } from "./query-schemas";
import { count, nullableTime, page, time } from "./schema-fields";

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

export const alertPageSchema = page(alertSchema);
