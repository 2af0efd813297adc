import type { ErrorCode, FieldError, Problem } from "./types";

/**
 * The API answered with an error: carries the problem object (RFC 9457) so callers can branch on
 * `code` and show every `errors[]` entry.
 * @example
 * try { await client.jobs.get("job_x") } catch (e) {
 *   if (e instanceof EdgecronProblemError && e.code === "job_not_found") ...
 * }
 */
export class EdgecronProblemError extends Error {
  override readonly name = "EdgecronProblemError";
  readonly problem: Problem;
  readonly status: number;
  /** One of the catalogue's codes (see `ErrorCode`); undefined when the body named none. */
  readonly code: ErrorCode | undefined;
  readonly errors: FieldError[];
  /** The response headers (Retry-After, request ids) for diagnostics. */
  readonly headers: Headers;

  constructor(problem: Problem, headers: Headers = new Headers()) {
    super(problemMessage(problem));
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
    this.errors = problem.errors ?? [];
    this.headers = headers;
  }
}

/** No HTTP answer (DNS, refused or reset connection, timeout) after every retry: a write may or may not have happened. */
export class EdgecronNetworkError extends Error {
  override readonly name = "EdgecronNetworkError";
  readonly url: string;

  constructor(url: string, cause: unknown) {
    super(`no answer from ${url}: ${describeCause(cause)}`, { cause });
    this.url = url;
  }
}

function problemMessage(problem: Problem): string {
  const head = problem.detail ? `${problem.title}: ${problem.detail}` : problem.title;
  const fields = (problem.errors ?? []).map((error) => `${error.path}: ${error.message}`);
  return fields.length > 0 ? `${head} (${fields.join("; ")})` : head;
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // Node's fetch says "fetch failed" and keeps the useful part (ECONNREFUSED ...) in `cause`.
  const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : "";
  return `${cause.message}${inner}`;
}

/**
 * Builds a Problem from any error response: the API's problem+json as is, anything else (a proxy's
 * HTML page, an empty 502) as a synthetic problem with the status and the start of the text.
 */
export function toProblem(status: number, statusText: string, bodyText: string): Problem {
  const parsed = parseJson(bodyText);
  if (isRecord(parsed) && typeof parsed.title === "string") {
    const errors = Array.isArray(parsed.errors) ? parsed.errors.filter(isFieldError) : undefined;
    return {
      ...parsed,
      type: typeof parsed.type === "string" ? parsed.type : "about:blank",
      title: parsed.title,
      status: typeof parsed.status === "number" ? parsed.status : status,
      ...(errors ? { errors } : {}),
    };
  }
  const detail = bodyText.trim().slice(0, 500);
  return {
    type: "about:blank",
    title: statusText || `HTTP ${status}`,
    status,
    code: "http_error",
    ...(detail ? { detail } : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFieldError(value: unknown): value is FieldError {
  return isRecord(value) && typeof value.path === "string" && typeof value.message === "string";
}
