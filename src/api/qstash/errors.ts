// QStash's error shape: `{"error": "..."}` with the status, which the client throws as
// QstashError(bodyText). Every /v2 failure goes through qstashErrorResponse, so no route answers
// our problem+json, and bad input is never a 5xx.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { logEvent } from "../../log";
import { EdgecronError } from "../http/problem";
import type { HeaderError } from "./headers";

export function qstashError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A 400 naming every bad header or field: `Upstash-Delay: must be ...; Upstash-Retries: ...`. */
export function badRequest(errors: readonly HeaderError[]): EdgecronError {
  const message = errors.map((error) => `${error.header}: ${error.message}`).join("; ");
  return new EdgecronError("validation_failed", message, {
    errors: errors.map((error) => ({ path: error.header, message: error.message })),
  });
}

/** The message the client shows: a validation failure lists its fields with their messages. */
function messageOf(error: EdgecronError): string {
  if (error.errors === undefined || error.errors.length === 0) return error.detail;
  if (error.errors.every((field) => error.detail.includes(field.message))) return error.detail;
  return error.errors.map((field) => `${field.path || "body"}: ${field.message}`).join("; ");
}

export function qstashErrorResponse(error: unknown, _c?: Context): Response {
  if (error instanceof EdgecronError) {
    const headers: Record<string, string> = error.status === 401 ? { "www-authenticate": "Bearer" } : {};
    // A tenant limit (429) says when to come back, as the /v1 problem does.
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    return qstashError(error.status, messageOf(error), headers);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return qstashError(error.status, error.message || "Request refused");
  }
  logEvent("api.unhandled_error", { error, api: "v2" });
  return qstashError(500, "Something went wrong on our side");
}

export function notFound(what: string): EdgecronError {
  return new EdgecronError("not_found", what);
}

/** The body cap's refusal (src/api/http/body.ts), which runs before any route. */
export function isBodyCapRefusal(error: unknown): boolean {
  return error instanceof EdgecronError && error.code === "payload_too_large";
}

/**
 * A problem+json answer that QStash's clients can also read: they take the message from `error`.
 */
export async function problemWithQstashError(problem: Response): Promise<Response> {
  const body = (await problem.json()) as { detail?: string; title?: string };
  const headers = new Headers(problem.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, error: body.detail ?? body.title ?? "Request refused" }), {
    status: problem.status,
    headers,
  });
}
