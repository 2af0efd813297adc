// How a route is defined once: `createRoute` (zod request and responses, operationId, tags) then
// `defineRoute`, which registers both the handler and the definition the document is built from.
import { OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../../../core/common/errors";
import type { AppEnv } from "../../http/app-env";
import { fieldErrorsOf, validationError } from "../../http/problem";
import { problemSchema } from "./components";

/**
 * A zod failure of the query, path or headers as our 400 problem naming every bad field (the
 * same paths and messages as a body failure). Thrown, so the one error handler answers.
 */
function validationHook(result: { success: true } | { success: false; error: z.ZodError }): void {
  if (!result.success) throw validationError(fieldErrorsOf(result.error.issues));
}

/** An API sub-app: routes defined with `defineRoute` validate through `validationHook`. */
export function apiRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

type RouteContext<R extends RouteConfig> = Parameters<RouteHandler<R, AppEnv>>[0];

/**
 * Registers the route and its definition. The body schema is for the document only: bodies go
 * through readJsonBody (415, 413, depth, Unicode) and the route's own checks, as before, while
 * query, path and headers are validated by the definition's schemas. Handlers answer through
 * shared mappers (jobResponse sets ETag and Location), so they return a plain Response;
 * test/integration/api-contract.test.ts holds real answers to the documented schemas.
 */
export function defineRoute<R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  route: R,
  handler: (c: RouteContext<R>) => Response | Promise<Response>,
): void {
  const { middleware: _middleware, hide: _hide, ...documented } = route;
  app.openAPIRegistry.registerPath(documented);
  const { body: _documentedOnly, ...validated } = route.request ?? {};
  // `never`: OpenAPIHono's typed-response handler type refuses a plain Response.
  app.openapi({ ...route, request: validated, hide: true }, handler as never);
}

export const json = <S extends z.ZodType>(schema: S, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <S extends z.ZodType>(schema: S) => ({
  required: true,
  content: { "application/json": { schema } },
});

/** Codes every authenticated route can answer, and those of routes that read a body. */
export const AUTH_ERRORS = [
  "unauthorized",
  "auth_throttled",
  "internal_error",
] as const satisfies ErrorCode[];
export const TENANT_ERRORS = [...AUTH_ERRORS, "tenant_required", "tenant_not_found"] as const;
export const ADMIN_ERRORS = [...AUTH_ERRORS, "forbidden"] as const;
export const BODY_ERRORS = [
  "validation_failed",
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
] as const satisfies ErrorCode[];
/** Why creating a job is refused: one job, or an item of a batch. */
export const JOB_CREATE_ERRORS = [
  ...TENANT_ERRORS,
  ...BODY_ERRORS,
  "idempotency_conflict",
  "tenant_limit_exceeded",
  "tenant_suspended",
] as const satisfies ErrorCode[];
/** Why a new attempt of a run is refused: a run's retry and a dead letter's redrive both start one. */
export const NEW_ATTEMPT_ERRORS = [
  "run_not_found",
  "run_not_retryable",
  "job_deleted",
  "tenant_suspended",
  "shard_unavailable",
] as const satisfies ErrorCode[];

type ProblemResponse = {
  description: string;
  content: { "application/problem+json": { schema: typeof problemSchema } };
};

/** The error responses of a route: one per status, each naming its codes (docs/API.md tables them). */
export function problems(...codes: readonly ErrorCode[]): Record<number, ProblemResponse> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ProblemResponse> = {};
  for (const [status, ofStatus] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: `Problem: ${ofStatus.map((code) => `\`${code}\``).join(", ")}`,
      content: { "application/problem+json": { schema: problemSchema } },
    };
  }
  return responses;
}

// Header parameters, described for the document; the routes check their values themselves
// (readIdempotency, expectedVersionOf, tenantScope), so these schemas never refuse anything.
const header = (description: string) => z.string().optional().meta({ description });
export const tenantHeaders = z.object({
  "edgecron-tenant": header("The tenant an admin token acts for (tenant keys need none)"),
});
export const createHeaders = tenantHeaders.extend({
  "idempotency-key": header("Same key and body replays the first answer; another body is 422"),
});
export const patchHeaders = tenantHeaders.extend({
  "if-match": header('The version being replaced: 3, "3" or W/"3" (409 if it moved on)'),
});
export const idParams = (example: string) =>
  z.object({ id: z.string().meta({ param: { name: "id", in: "path" }, example }) });
