// The one place an error becomes an HTTP response, for the API and the console alike (the
// entry mounts both on one app and installs these).
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { EdgecronError, type ErrorCode } from "../core/errors";
import { logEvent } from "../log";
import { problemResponse, toProblem } from "./problem";

/** Hono's own refusals (HTTPException) as catalogue codes: the code, not Hono, decides the status. */
const HTTP_EXCEPTION_CODES: Record<number, ErrorCode> = {
  401: "unauthorized",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

function asEdgecronError(error: unknown): EdgecronError | null {
  if (error instanceof EdgecronError) return error;
  if (error instanceof HTTPException && error.status < 500) {
    const code = HTTP_EXCEPTION_CODES[error.status] ?? "http_error";
    return new EdgecronError(code, error.message || "Request refused", { cause: error });
  }
  return null;
}

export function errorResponse(error: unknown, _c?: Context): Response {
  const known = asEdgecronError(error);
  if (known === null) {
    logEvent("api.unhandled_error", { error });
    return problemResponse(
      toProblem(new EdgecronError("internal_error", "Something went wrong on our side")),
    );
  }
  const headers: Record<string, string> = known.status === 401 ? { "www-authenticate": "Bearer" } : {};
  return problemResponse(toProblem(known), headers);
}

export function notFoundResponse(): Response {
  return problemResponse(toProblem(new EdgecronError("not_found", "No such route")));
}
