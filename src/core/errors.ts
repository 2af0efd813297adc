/**
 * Error codes a client can act on, with their HTTP status and a short title. Codes are stable:
 * clients branch on them, so rename nothing, only add. The API's one onError maps an
 * EdgecronError to an RFC 9457 problem (see toProblem).
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, title: "The request is not valid" },
  invalid_json: { status: 400, title: "The body is not valid JSON" },
  unauthorized: { status: 401, title: "Missing or invalid credentials" },
  forbidden: { status: 403, title: "Not allowed for this key" },
  not_found: { status: 404, title: "Not found" },
  job_not_found: { status: 404, title: "Job not found" },
  run_not_found: { status: 404, title: "Run not found" },
  dead_letter_not_found: { status: 404, title: "Dead letter not found" },
  version_conflict: { status: 409, title: "The job changed since you read it" },
  // Same Idempotency-Key, still being processed (draft-ietf-httpapi-idempotency-key-header).
  idempotency_in_progress: { status: 409, title: "A request with this Idempotency-Key is in progress" },
  // Same Idempotency-Key, different request body (same draft: 422).
  idempotency_conflict: { status: 422, title: "Idempotency-Key reused with a different request" },
  run_not_retryable: { status: 409, title: "Only a failed or dead-lettered run can be retried" },
  job_not_active: { status: 409, title: "The job is not active" },
  payload_too_large: { status: 413, title: "The request body is too large" },
  unsupported_media_type: { status: 415, title: "Send application/json" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One field error of a validation problem: `path` like "schedule.expr" or "target.headers.Host". */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * A domain error with a stable code. Throw it from anywhere in the Worker; the error handler
 * turns it into problem+json. Anything else that escapes is a bug (500, internal_error).
 *
 * @example throw new EdgecronError("job_not_found", `no job ${jobId}`);
 * @example throw new EdgecronError("validation_failed", "2 fields are invalid", { errors });
 */
export class EdgecronError extends Error {
  override readonly name = "EdgecronError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly errors?: FieldError[];

  constructor(code: ErrorCode, detail: string, options: { errors?: FieldError[]; cause?: unknown } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.detail = detail;
    if (options.errors !== undefined) this.errors = options.errors;
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
    title: ERROR_CODES[error.code].title,
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
