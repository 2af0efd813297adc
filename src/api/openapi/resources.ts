// Response shapes of docs/API.md as zod schemas: documentation for the OpenAPI document only
// (responses are built by the mappers in src/db and src/api/job-view.ts).
import { z } from "zod";
import { jobCreateSchema, jobStatusSchema } from "../../core/job-spec";

const time = z.iso.datetime();
const nullableTime = time.nullable();
const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export const jobSchema = jobCreateSchema.extend({
  id: z.string(),
  status: jobStatusSchema,
  version: z.number().int(),
  shard: z.number().int(),
  next_fire_times: z.array(time),
  created_at: time,
  updated_at: time,
});

export const tenantSchema = z.object({
  id: z.string(),
  name: z.string(),
  alert_webhook_url: z.string().nullable(),
  signing_secret: z.string(),
  signing_secret_next: z.string().nullable(),
  created_at: time,
});

export const apiKeySchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string().nullable(),
  key: z.string().describe("Shown once, in the create response only"),
  key_prefix: z.string(),
  created_at: time,
  revoked_at: nullableTime,
});

export const runSchema = z.object({
  id: z.string(),
  job_id: z.string(),
  kind: z.enum(["schedule", "trigger", "backfill", "catch_up"]),
  scheduled_at: time,
  idempotency_key: z.string(),
  state: z.string(),
  attempt: z.number().int(),
  max_attempts: z.number().int(),
  fence: z.number().int().nullable(),
  job_version: z.number().int(),
  target_status: z.number().int().nullable(),
  error: z.string().nullable(),
  lateness_ms: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  next_attempt_at: nullableTime,
  events: z.array(
    z.looseObject({ state: z.string(), at: time, reason: z.string(), attempt: z.number().int() }),
  ),
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
  kind: z.string(),
  message: z.string(),
  details: z.unknown(),
  created_at: time,
  delivered_at: nullableTime,
  resolved_at: nullableTime,
});

export const statsSchema = z.object({
  jobs_by_status: z.record(z.string(), z.number().int()),
  runs_by_state: z.record(z.string(), z.number().int()),
  per_minute: z.array(z.object({ minute: time, triggers: z.number().int(), failures: z.number().int() })),
  lateness_ms: z.object({
    p50: z.number().nullable(),
    p90: z.number().nullable(),
    p99: z.number().nullable(),
    count: z.number().int(),
  }),
});

export const batchResultSchema = z.object({
  created: z.number().int(),
  failed: z.number().int(),
  results: z.array(
    z.union([
      z.object({ index: z.number().int(), status: z.literal(201), job: jobSchema }),
      z.object({ index: z.number().int(), status: z.literal(400), error: problemSchema }),
    ]),
  ),
});

export const pages = {
  jobs: page(jobSchema),
  runs: page(runSchema),
  deadLetters: page(deadLetterSchema),
  alerts: page(alertSchema),
};
