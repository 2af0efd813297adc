// Every request and response shape of the v1 API as zod schemas, gathered in one module: the
// routes validate with them, the OpenAPI document is generated from them (src/api/v1/openapi), and
// the typed client takes its types from them (type-only imports). Each file it gathers holds one
// kind of shape and imports only zod, src/core and the fields they share (src/api/v1/schema-fields.ts),
// never Cloudflare or Hono.

export { MAX_PREVIEW_COUNT } from "../../core/jobs/preview";
export { completionBodySchema } from "../../core/runs/long-running";
export { MAX_BACKFILL_INSTANTS } from "../../core/schedules/backfill";
export * from "./calendar-schemas";
export * from "./flow-control-schemas";
export * from "./job-schemas";
export * from "./monitoring-schemas";
export * from "./problem-schema";
export * from "./query-schemas";
export * from "./request-schemas";
export * from "./run-schemas";
export * from "./tenant-schemas";
