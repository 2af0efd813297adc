import { z } from "zod";
import { jobCreateSchema, scheduleSchema } from "../../core/job-spec";
import { apiKeyCreateSchema } from "../routes/api-keys";
import { backfillRequestSchema } from "../routes/job-operations";
import { previewRequestSchema } from "../routes/schedules";
import { tenantCreateSchema, tenantPatchSchema } from "../routes/tenants";
import {
  alertSchema,
  apiKeySchema,
  batchResultSchema,
  deadLetterSchema,
  jobSchema,
  pages,
  problemSchema,
  runSchema,
  statsSchema,
  tenantSchema,
} from "./resources";
import { type RouteDoc, routeDocs } from "./routes";

type JsonObject = Record<string, unknown>;

/** Every schema the document names, generated from the zod schemas the API validates with. */
const COMPONENTS: Record<string, { schema: z.ZodType; io: "input" | "output" }> = {
  Problem: { schema: problemSchema, io: "output" },
  Schedule: { schema: scheduleSchema, io: "input" },
  JobCreate: { schema: jobCreateSchema, io: "input" },
  JobPatch: {
    schema: jobCreateSchema.partial().extend({ version: z.number().int().min(1).optional() }),
    io: "input",
  },
  JobBatchRequest: {
    schema: z.strictObject({ jobs: z.array(jobCreateSchema).min(1).max(1000) }),
    io: "input",
  },
  JobBatchResult: { schema: batchResultSchema, io: "output" },
  Job: { schema: jobSchema, io: "output" },
  JobPage: { schema: pages.jobs, io: "output" },
  BackfillRequest: { schema: backfillRequestSchema, io: "input" },
  Run: { schema: runSchema, io: "output" },
  RunPage: { schema: pages.runs, io: "output" },
  DeadLetter: { schema: deadLetterSchema, io: "output" },
  DeadLetterPage: { schema: pages.deadLetters, io: "output" },
  AlertPage: { schema: pages.alerts, io: "output" },
  Alert: { schema: alertSchema, io: "output" },
  Stats: { schema: statsSchema, io: "output" },
  PreviewRequest: { schema: previewRequestSchema, io: "input" },
  TenantCreate: { schema: tenantCreateSchema, io: "input" },
  TenantPatch: { schema: tenantPatchSchema, io: "input" },
  Tenant: { schema: tenantSchema, io: "output" },
  ApiKeyCreate: { schema: apiKeyCreateSchema, io: "input" },
  ApiKey: { schema: apiKeySchema, io: "output" },
};

function componentSchemas(): JsonObject {
  const schemas: JsonObject = {};
  for (const [name, { schema, io }] of Object.entries(COMPONENTS)) {
    const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
      io,
      unrepresentable: "any",
    }) as JsonObject;
    schemas[name] = json;
  }
  return schemas;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problemContent = { "application/problem+json": { schema: ref("Problem") } };

function operation(route: RouteDoc): JsonObject {
  const parameters = [
    ...(route.path.match(/\{(\w+)\}/g) ?? []).map((param) => ({
      name: param.slice(1, -1),
      in: "path",
      required: true,
      schema: { type: "string" },
    })),
    ...(route.query ?? []).map(([name, type]) => ({ name, in: "query", required: false, schema: { type } })),
    ...(route.headers ?? []).map((name) => ({
      name,
      in: "header",
      required: false,
      schema: { type: "string" },
    })),
  ];
  const okContent =
    route.response === undefined ? undefined : { "application/json": { schema: ref(route.response) } };
  return {
    summary: route.summary,
    tags: [route.tag],
    ...(route.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: ref(route.body) } } } }),
    responses: {
      [String(route.status)]: { description: "Success", ...(okContent ? { content: okContent } : {}) },
      default: { description: "A problem (RFC 9457)", content: problemContent },
    },
  };
}

/** The OpenAPI 3.1 document of the whole v1 API. */
export function buildOpenApiDocument(): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routeDocs) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "edgecron API",
      version: "1.0.0",
      description: "Edge-native distributed job scheduler. Errors are application/problem+json (RFC 9457).",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "A tenant API key (ek_...) or the admin token",
        },
      },
      schemas: componentSchemas(),
    },
  };
}
