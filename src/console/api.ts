// The console reads and writes through the API itself, in-process: a Request goes to the API Hono
// app's `fetch`, so tenant scoping, validation and error shapes are exactly the API's. The session
// holds no secret to send as a bearer token: the Request is marked with the session's caller
// instead (src/api/http/in-process-caller.ts). Nothing here talks to D1 or a shard directly.
import { app as apiApp } from "../api/app";
import { clientAddressOf, withClientAddress } from "../api/http/client-address";
import { asInProcessCaller } from "../api/http/in-process-caller";
import type { ConsoleContext } from "./env";
import { callerOfSession } from "./session";
import type { ApiResult, Problem } from "./types";

function executionContextOf(c: ConsoleContext): ExecutionContext | undefined {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return undefined;
  }
}

function toProblem(status: number, body: unknown, statusText: string): Problem {
  if (body && typeof body === "object" && "title" in body) {
    const problem = body as Partial<Problem>;
    return {
      ...problem,
      title: String(problem.title),
      status: typeof problem.status === "number" ? problem.status : status,
    };
  }
  return {
    title: statusText || `HTTP ${status}`,
    status,
    detail: typeof body === "string" ? body : undefined,
  };
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send this bearer token instead of acting as the session (sign-in checks a key before a session exists). */
  token?: string;
  /** Admin tenant switch: sent as Edgecron-Tenant. */
  tenant?: string | null;
}

export async function callApi<T>(
  c: ConsoleContext,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResult<T>> {
  const session = c.get("session") as ConsoleContext["var"]["session"] | undefined;
  const tenant =
    options.tenant !== undefined ? options.tenant : session?.role === "admin" ? session.actingTenant : null;
  const headers = new Headers(options.headers);
  headers.set("accept", "application/json");
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  if (tenant) headers.set("edgecron-tenant", tenant);
  if (options.body !== undefined) headers.set("content-type", "application/json");
  const request = new Request(new URL(path, c.req.url), {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (options.token === undefined && session) asInProcessCaller(request, callerOfSession(session));
  // Sign-in checks a token through the API: its failures count against the visitor's address.
  withClientAddress(request, clientAddressOf(c.req.raw, c.env));
  let response: Response;
  try {
    response = await apiApp.fetch(request, c.env, executionContextOf(c));
  } catch (error) {
    return {
      ok: false,
      status: 500,
      problem: { title: "API call failed", status: 500, detail: String(error) },
    };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  if (response.ok) return { ok: true, status: response.status, data: body as T };
  return {
    ok: false,
    status: response.status,
    problem: toProblem(response.status, body, response.statusText),
  };
}

/** Query string from defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
