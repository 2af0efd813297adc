// The v1 API's answers about runs: a run and its events, a dead letter, and what a trigger, a
// backfill, a retry, a completion, a heartbeat or a redrive answers.
import { z } from "zod";
import { HOLD_CAUSES, WAIT_CAUSES } from "../../core/load/run-waits";
import { runStateSchema } from "./query-schemas";
import { count, nullableTime, page, time } from "./schema-fields";

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

export const runPageSchema = page(runSchema);
export const deadLetterPageSchema = page(deadLetterSchema);
