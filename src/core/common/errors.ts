/**
 * Every error code a client of the API can receive, with the HTTP status it decides and what it
 * means. This is the one list: the API throws only these (EdgecronError), docs/API.md tables
 * them, and the typed client's `ErrorCode` is this object's keys. Codes are stable: clients
 * branch on them, so rename nothing, only add.
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, description: "Fields of the request are invalid; `errors[]` names each" },
  invalid_json: { status: 400, description: "The body is not valid JSON, or nests deeper than 64 levels" },
  invalid_cursor: { status: 400, description: "The `cursor` is not one this API returned" },
  tenant_required: { status: 400, description: "The admin token must name a tenant with `Edgecron-Tenant`" },
  too_many_instants: { status: 400, description: "A backfill range holds more than 1,000 instants" },
  http_error: { status: 400, description: "The router refused the request before any route ran" },
  unauthorized: { status: 401, description: "Missing, unknown or revoked API key or admin token" },
  forbidden: { status: 403, description: "The route needs the admin token" },
  invalid_run_token: {
    status: 403,
    description: "Not a run token of this run (forged, another run's, an API key)",
  },
  not_found: { status: 404, description: "No such route" },
  method_not_allowed: {
    status: 405,
    description: "The path exists, not with this method; `Allow` lists those it takes",
  },
  tenant_not_found: { status: 404, description: "No such tenant (or not yours)" },

  api_key_not_found: { status: 404, description: "No such API key" },
  job_not_found: { status: 404, description: "No such job in this tenant" },
  run_not_found: { status: 404, description: "No such run in this tenant" },
  dead_letter_not_found: { status: 404, description: "No such dead letter in this tenant" },
  alert_not_found: { status: 404, description: "No such alert in this tenant" },
  calendar_not_found: { status: 404, description: "No such calendar in this tenant" },
  bulk_operation_not_found: { status: 404, description: "No such bulk operation in this tenant" },
  version_conflict: {
    status: 409,
    description: "The job changed since you read it: read it again and retry",
  },
  job_deleted: {
    status: 409,
    description: "The job is deleted: it cannot be edited, nor its runs retried or redriven",
  },
  calendar_exists: { status: 409, description: "A calendar of that name exists: replace it with PUT" },
  calendar_in_use: {
    status: 409,
    description: "Jobs name the calendar (`detail` lists them): remove it from them before deleting",
  },
  schedule_file_conflict: {
    status: 409,
    description:
      "A schedule file names a job or calendar it does not manage (`errors[]` names each): adopt, rename or remove it",
  },
  job_not_active: { status: 409, description: "The operation needs an ACTIVE (or PAUSED) job" },
  tenant_suspended: {
    status: 409,
    description:
      "The tenant is suspended by an admin: nothing of it runs, and what would start work is refused",
  },
  run_not_retryable: { status: 409, description: "Only a FAILED or DEAD_LETTERED run can be retried" },
  attempt_superseded: {
    status: 409,
    description: "The token's attempt is no longer running (completed, lease expired, retried)",
  },
  already_redriven: { status: 409, description: "The dead letter was already redriven" },
  no_next_signing_secret: { status: 409, description: "Rotate the signing secret before promoting it" },
  not_created_by_original_request: {
    status: 409,
    description: "Batch replay only: this item was not created by the first request with the key",
  },
  payload_too_large: { status: 413, description: "The body is over 1 MiB" },
  unsupported_media_type: { status: 415, description: "Send the body as application/json" },
  // Same Idempotency-Key, different request body (draft-ietf-httpapi-idempotency-key-header: 422).
  idempotency_conflict: { status: 422, description: "The Idempotency-Key was used with another body" },
  auth_throttled: {
    status: 429,
    description:
      "Too many failed authentications for this key prefix, from this address or (no address trusted) from all callers; retry after `Retry-After`",
  },
  tenant_limit_exceeded: {
    status: 429,
    description: "Over a tenant limit (`errors[]` names it); retry after `Retry-After` seconds",
  },
  internal_error: { status: 500, description: "A bug on our side; nothing was promised" },
  shard_unavailable: { status: 503, description: "A scheduler shard could not be reached: retry shortly" },
  job_not_synced: { status: 503, description: "The job has not reached its shard yet: retry shortly" },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in catalogue order (for schemas: `z.enum(ERROR_CODE_LIST)`). */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The problem's `title`: the status's reason phrase (RFC 9110), the same for every code of a status. */
const STATUS_TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** One field error of a validation problem: `path` like "schedule.expr" or "jobs.3.name". */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * A domain error with a stable code; the code decides the HTTP status. Throw it from anywhere in
 * the Worker; the API's one onError turns it into problem+json. Anything else that escapes is a
 * bug (500, internal_error).
 *
 * @example throw new EdgecronError("job_not_found", `No job ${jobId}`);
 * @example throw new EdgecronError("validation_failed", "2 fields are invalid", { errors });
 */
export class EdgecronError extends Error {
  override readonly name = "EdgecronError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly errors?: FieldError[];
  /** Sent as `Retry-After` (seconds): when the refused request may succeed (429, 503). */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: FieldError[]; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.detail = detail;
    if (options.errors !== undefined) this.errors = options.errors;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** An RFC 9457 problem document, plus our stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  errors?: FieldError[];
}

/**
 * The problem+json body for an error. `type` is a URN per code (RFC 9457 allows any URI; a URN
 * promises no documentation page we do not host).
 *
 * @example toProblem(new EdgecronError("job_not_found", "no job j_1")).type === "urn:edgecron:problem:job_not_found"
 */
export function toProblem(error: EdgecronError, instance?: string): Problem {
  const problem: Problem = {
    type: `urn:edgecron:problem:${error.code}`,
    title: STATUS_TITLES[error.status] ?? "Error",
    status: error.status,
    detail: error.detail,
    code: error.code,
  };
  if (instance !== undefined) problem.instance = instance;
  if (error.errors !== undefined) problem.errors = error.errors;
  return problem;
}

/** @example isErrorCode("job_not_found") === true */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
