// The one place an error becomes an HTTP response, for the API and the console alike (the
// entry mounts both on one app and installs these).
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { EdgecronError, type ErrorCode } from "../../core/common/errors";
import { logEvent } from "../../log";
import { allowedMethods } from "./allowed-methods";
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
  if (known.retryAfterSeconds !== undefined) headers["retry-after"] = String(known.retryAfterSeconds);
  return problemResponse(toProblem(known), headers);
}

/**
 * No route answered: 405 with `Allow` when the path exists with other methods (RFC 9110
 * §15.5.6), else 404. `app` is the one whose router knows every path (the entry's, or the API's
 * when it is called on its own).
 */
export function notFoundFor(app: Parameters<typeof allowedMethods>[0]) {
  return (c: Context): Response => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length === 0)
      return problemResponse(toProblem(new EdgecronError("not_found", "No such route")));
    const detail = `${c.req.method} is not allowed here; use ${allowed.join(", ")}`;
    return problemResponse(toProblem(new EdgecronError("method_not_allowed", detail)), {
      allow: allowed.join(", "),
    });
  };
}
