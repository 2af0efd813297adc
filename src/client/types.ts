// Response shapes of the v1 API, written from docs/API.md. Request bodies come from the zod
// schemas in src/core/job-spec.ts as type-only imports, so zod never enters a client bundle.
import type { ExclusionRule, ExclusionSet } from "../core/exclusions";
import type { JobCreate, JobSpec, Schedule } from "../core/job-spec";
import type { JobStatus } from "../core/run-state";

export type { ExclusionRule, ExclusionSet, JobCreate, JobSpec, Schedule };

/** RFC 3339 UTC timestamp with milliseconds, e.g. `2026-12-01T00:00:00.000Z`. */
export type Instant = string;
/** `"30s"`, `"15m"`, `"2h"`, `"1d"` or integer milliseconds, echoed as sent. */
export type Duration = string | number;

/** One field error of a validation problem; `path` is dotted (`schedule.expr`, `jobs.3.name`). */
export interface FieldError {
  path: string;
  message: string;
}

/** An `application/problem+json` body (RFC 9457) as the API sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface PageParams {
  limit?: number;
  cursor?: string;
}

export type { JobStatus };

/** A job as every job route returns it: the validated spec plus server-owned fields. */
export type Job = JobSpec & {
  id: string;
  status: JobStatus;
  version: number;
  shard: number;
  next_fire_times: Instant[];
  created_at: Instant;
  updated_at: Instant;
};

/** PATCH body: any create field; `version` (or the If-Match option) guards concurrent edits. */
export type JobUpdate = Partial<JobCreate> & { version?: number };

export interface ListJobsParams extends PageParams {
  status?: JobStatus;
  /** Name prefix. */
  name?: string;
}

export type BatchItemResult =
  | { index: number; status: 201; job: Job }
  | { index: number; status: number; error: Problem };

export interface BatchResult {
  created: number;
  failed: number;
  results: BatchItemResult[];
}

export interface TriggerResult {
  run_id: string;
  job_id: string;
  scheduled_at: Instant;
}

export interface BackfillResult {
  created: number;
  skipped: number;
  run_ids: string[];
}

export type RunState =
  | "SCHEDULED"
  | "ACQUIRED"
  | "DISPATCHED"
  | "RUNNING"
  | "SUCCEEDED"
  | "FAILED"
  | "RETRYING"
  | "DEAD_LETTERED"
  | "SKIPPED"
  | "CANCELLED";

export type RunKind = "schedule" | "trigger" | "backfill" | "catch_up";

export interface RunEvent {
  state: RunState;
  at: Instant;
  reason: string;
  attempt: number;
}

export interface Run {
  id: string;
  job_id: string;
  kind: RunKind;
  scheduled_at: Instant;
  idempotency_key: string;
  state: RunState;
  attempt: number;
  max_attempts: number;
  fence: number;
  job_version: number;
  target_status: number | null;
  error: string | null;
  lateness_ms: number | null;
  duration_ms: number | null;
  next_attempt_at: Instant | null;
  events: RunEvent[];
  created_at: Instant;
  updated_at: Instant;
}

export interface ListRunsParams extends PageParams {
  state?: RunState;
  job_id?: string;
}

export interface RetryResult {
  run_id: string;
  attempt: number;
}

export interface DeadLetter {
  id: string;
  job_id: string;
  run_id: string;
  attempt: number;
  scheduled_at: Instant;
  reason: string;
  last_error: string | null;
  target_status: number | null;
  payload: { method: string; url: string; headers: Record<string, string>; body: unknown };
  created_at: Instant;
  redriven_at: Instant | null;
}

export interface ListDeadLettersParams extends PageParams {
  job_id?: string;
}

export interface RedriveResult {
  run_id: string;
  attempt: number;
  dead_letter_id: string;
}

export interface Alert {
  id: string;
  job_id: string | null;
  run_id: string | null;
  kind: string;
  message: string;
  details: unknown;
  created_at: Instant;
  delivered_at: Instant | null;
  resolved_at: Instant | null;
}

export interface ListAlertsParams extends PageParams {
  kind?: string;
}

export interface Stats {
  jobs_by_status: Partial<Record<JobStatus, number>>;
  runs_by_state: Partial<Record<RunState, number>>;
  per_minute: { minute: Instant; triggers: number; failures: number }[];
  lateness_ms: { p50: number | null; p90: number | null; p99: number | null; count: number };
}

export interface PreviewRequest {
  /** Exactly one of `schedule` or `schedules` (their instants are unioned). */
  schedule?: Schedule;
  schedules?: Schedule[];
  /** Names of the tenant's calendars whose instants are left out. */
  calendars?: string[];
  exclude?: ExclusionSet | null;
  /** 1..1000, default 5. */
  count?: number;
  /** Fire times are strictly after this instant (default now). */
  from?: Instant;
}

export interface PreviewResult {
  fire_times: Instant[];
  /** Instants the exclusions left out, up to the last fire time listed. */
  excluded: Instant[];
}

/** A tenant's named calendar: exclusion rules on local dates in a time zone. */
export interface Calendar {
  name: string;
  description: string;
  timezone: string;
  rules: ExclusionRule[];
  /** Grows with every edit. */
  revision: number;
  created_at: Instant;
  updated_at: Instant;
}

/** `GET /v1/calendars/{name}`: the calendar and the jobs that name it (at most 100). */
export type CalendarDetail = Calendar & { jobs: { id: string; name: string }[] };

export interface CalendarCreate {
  name: string;
  description?: string;
  timezone: string;
  rules: ExclusionRule[];
}

export type CalendarReplace = Omit<CalendarCreate, "name">;

export interface Tenant {
  id: string;
  name: string;
  alert_webhook_url: string | null;
  signing_secret: string;
  signing_secret_next: string | null;
  created_at: Instant;
}

export interface TenantCreate {
  name: string;
  alert_webhook_url?: string | null;
}

export type TenantUpdate = Partial<TenantCreate>;

export interface ApiKeyCreate {
  tenant_id: string;
  name?: string;
}

export interface ApiKey {
  id: string;
  tenant_id: string;
  name: string | null;
  /** The secret key, shown once at creation. */
  key: string;
  key_prefix: string;
  created_at: Instant;
}

/** A key as `GET /v1/api-keys?tenant_id=` lists it: never the secret itself. */
export interface ApiKeySummary {
  id: string;
  tenant_id: string;
  name: string | null;
  key_prefix: string;
  created_at: Instant;
  revoked_at: Instant | null;
}

export interface ApiKeyRevoked {
  id: string;
  revoked_at: Instant;
}

export interface Me {
  role: "admin" | "tenant";
  tenant_id: string | null;
}

export interface Health {
  status: string;
}
