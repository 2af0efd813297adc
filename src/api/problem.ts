import type { z } from "zod";

/** One field problem: `path` is dotted into the request (`schedule.expr`, `jobs.3.name`). */
export interface FieldError {
  path: string;
  message: string;
}

/** RFC 9457 problem details, plus our stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/**
 * The one HTTP error type of the API layer: thrown anywhere below a route, turned into
 * problem+json by `app.onError`. `new ApiError(404, "job_not_found", "No job job_01...")`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

export function problemOf(status: number, code: string, detail: string, errors?: FieldError[]): Problem {
  const problem: Problem = {
    type: `urn:edgecron:problem:${code}`,
    title: TITLES[status] ?? "Error",
    status,
    detail,
    code,
  };
  if (errors !== undefined) problem.errors = errors;
  return problem;
}

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "content-type": "application/problem+json", ...headers },
  });
}

/** Every zod issue as a field error; unknown keys become one error per key, at that key. */
export function fieldErrorsOf(
  issues: readonly z.core.$ZodIssue[],
  prefix: (string | number)[] = [],
): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path.map((part) => String(part))];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        errors.push({ path: joinPath([...path, key]), message: "is not a known field" });
    } else {
      errors.push({ path: joinPath(path), message: issue.message });
    }
  }
  return errors;
}

export function joinPath(parts: (string | number)[]): string {
  return parts.map(String).join(".");
}

export function validationError(errors: FieldError[], detail?: string): ApiError {
  const fields = [...new Set(errors.map((error) => error.path || "(body)"))].join(", ");
  return new ApiError(
    400,
    "validation_failed",
    detail ?? `The request has invalid fields: ${fields}`,
    errors,
  );
}

/** Duck-typed domain errors (ours or core's EdgecronError): anything with a code and an HTTP status. */
export function asDomainError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (typeof error !== "object" || error === null) return null;
  const candidate = error as { code?: unknown; status?: unknown; message?: unknown };
  if (typeof candidate.code !== "string" || typeof candidate.status !== "number") return null;
  if (candidate.status < 400 || candidate.status > 599) return null;
  const detail = typeof candidate.message === "string" ? candidate.message : candidate.code;
  return new ApiError(candidate.status, candidate.code, detail);
}
