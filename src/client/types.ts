// Types of the v1 API. Responses and request bodies are the zod schemas the API validates with
// and documents (src/api/v1/schemas.ts), taken as type-only imports so zod never enters a client
// bundle; only the query parameters are written here (the client sends numbers, the wire strings).
import type { z } from "zod";
import type * as bulk from "../api/v1/job-bulk-schema";
import type * as api from "../api/v1/schemas";
import type { ErrorCode, FieldError, Problem as ServerProblem } from "../core/common/errors";
import type { JobCreate, JobSpec, JobTarget, Schedule } from "../core/jobs/job-spec";

/**
 * Every `code` the API can answer with: the keys of the server's one error catalogue
 * (src/core/common/errors.ts, tabled in docs/API.md), as a type-only import so the catalogue itself stays
 * out of a client bundle. `http_error` is also what the client reports for an answer that is not
 * problem+json (a proxy's HTML page, an empty 502).
 */
/** HTTP (`url`) or a binding of the deployment (`type: "service" | "workflow" | "queue"`, `binding`). */
export type { ErrorCode, JobCreate, JobSpec, JobTarget, Schedule };

/** RFC 3339 UTC timestamp with milliseconds, e.g. `2026-12-01T00:00:00.000Z`. */
export type Instant = string;
/** `"30s"`, `"15m"`, `"2h"`, `"1d"` or integer milliseconds, echoed as sent. */
export type Duration = string | number;

/** One field error of a validation problem; `path` is dotted (`schedule.expr`, `jobs.3.name`). */
export type { FieldError };

/**
 * An `application/problem+json` body (RFC 9457): the server's own shape (src/core/common/errors.ts), with
 * `detail` and `code` optional because a proxy's or a future server's problem may lack them.
 */
export interface Problem
  extends Pick<ServerProblem, "type" | "title" | "status">,
    Partial<Pick<ServerProblem, "detail" | "code" | "errors">> {
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

export type JobStatus = z.output<typeof api.jobStatusSchema>;

/** A job's delivery window: `{timezone?, days?, between: ["08:00", "20:00"], outside?: "defer" | "skip"}`. */
export type DeliveryWindow = NonNullable<JobCreate["window"]>;
/** A job's flexible window: `{max: "15m"}`. */
export type FlexibleWindow = NonNullable<JobCreate["flexible_window"]>;

/** A job as every job route returns it: the validated spec plus server-owned fields. */
export type Job = z.output<typeof api.jobSchema>;

/** PATCH body: any create field; `version` (or the If-Match option) guards concurrent edits. */
export type JobUpdate = z.input<typeof api.jobPatchDocSchema>;

export interface ListJobsParams extends PageParams {
  status?: JobStatus;
  /** Name prefix. */
  name?: string;
}

export type BatchItemResult = BatchResult["results"][number];

export type BatchResult = z.output<typeof api.batchResultSchema>;

/** POST /v1/jobs/bulk: an action on the caller's jobs that match the filter. */
export type JobBulk = z.input<typeof bulk.jobBulkSchema>;

export type JobBulkResult = z.output<typeof bulk.jobBulkResultSchema>;

/** A bulk call answered 202 (more than 5,000 jobs to change): its progress, from `jobs.bulkOperation`. */
export type JobBulkOperation = z.output<typeof bulk.jobBulkOperationSchema>;

export type TriggerResult = z.output<typeof api.triggerResultSchema>;

export type BackfillResult = z.output<typeof api.backfillResultSchema>;

export type RunState = z.output<typeof api.runStateSchema>;

export type RunKind = Run["kind"];

export type RunEvent = z.output<typeof api.runEventSchema>;

export type Run = z.output<typeof api.runSchema>;

export interface ListRunsParams extends PageParams {
  state?: RunState;
  job_id?: string;
}

export type RetryResult = z.output<typeof api.retryResultSchema>;

/** What a long-running target reports at `POST /v1/runs/{id}/complete`. */
export type RunCompletion = z.input<typeof api.completionBodySchema>;

export type CompleteResult = z.output<typeof api.completeResultSchema>;

export type HeartbeatResult = z.output<typeof api.heartbeatResultSchema>;

export type DeadLetter = z.output<typeof api.deadLetterSchema>;

export interface ListDeadLettersParams extends PageParams {
  job_id?: string;
}

export type RedriveResult = z.output<typeof api.redriveResultSchema>;

export type Alert = z.output<typeof api.alertSchema>;

export type AlertKind = z.output<typeof api.alertKindSchema>;

/** open (nobody acted), acknowledged (seen, unresolved), resolved. */
export type AlertState = z.output<typeof api.alertStateSchema>;

export interface ListAlertsParams extends PageParams {
  kind?: AlertKind;
  state?: AlertState;
}

export type Stats = z.output<typeof api.statsSchema>;

export type PreviewRequest = z.input<typeof api.previewRequestSchema>;

export type PreviewResult = z.output<typeof api.previewResultSchema>;

export type Tenant = z.output<typeof api.tenantSchema>;

export type TenantCreate = z.input<typeof api.tenantCreateSchema>;

export type TenantUpdate = z.input<typeof api.tenantPatchSchema>;

/** A tenant's limits and fair-share weight as they apply now (its overrides over the defaults). */
export type TenantLimits = z.output<typeof api.tenantLimitsSchema>;

/** PUT replaces the overrides: a positive integer, null for no limit, absent for the default. */
export type TenantLimitsPut = z.input<typeof api.tenantLimitsPutSchema>;

export type ApiKeyCreate = z.input<typeof api.apiKeyCreateSchema>;

/** A new key: `key` (the secret) is shown once, at creation. */
export type ApiKey = z.output<typeof api.apiKeySchema>;

/** A key as `GET /v1/api-keys?tenant_id=` lists it: never the secret itself. */
export type ApiKeySummary = z.output<typeof api.apiKeyListedSchema>;

export type ApiKeyRevoked = z.output<typeof api.apiKeyRevokedSchema>;

export type Me = z.output<typeof api.meSchema>;

export type Health = z.output<typeof api.healthSchema>;

/** One shard's timers and the tz database they were computed with (`GET /v1/tzdata`). */
export type ShardTzdata = z.output<typeof api.shardTzdataSchema>;
/** `GET /v1/tzdata` (admin): the runtime's tz database version and every shard's timers. */
export type TzdataStatus = z.output<typeof api.tzdataStatusSchema>;
/** A tenant's named calendar: exclusion rules on local dates in a time zone. */
export type Calendar = z.output<typeof api.calendarSchema>;
/** `GET /v1/calendars/{name}`: the calendar and the jobs that name it (at most 100). */
export type CalendarDetail = z.output<typeof api.calendarDetailSchema>;
export type CalendarCreate = z.input<typeof api.calendarCreateSchema>;
export type CalendarReplace = z.input<typeof api.calendarReplaceSchema>;
