// The fuzz suite's /v1 cases, derived from the OpenAPI document the Worker serves: for every
// operation, each field of its body (on top of a body the route accepts), each query parameter
// and each path parameter gets bad values.
import {
  type FuzzValue,
  fieldsOf,
  type Json,
  resolve,
  type Schema,
  shuffled,
  valuesFor,
  withValue,
} from "./fuzz-schema";

export interface FuzzWorld {
  adminToken: string;
  key: string;
  /** A tenant the admin routes may change (its limits, its name, its keys). */
  victimTenantId: string;
  jobId: string;
  calendarName: string;
  targetUrl: string;
}

export interface FuzzCase {
  label: string;
  method: string;
  path: string;
  token: string;
  headers?: Record<string, string>;
  body?: string;
  /** The field at fault: a 400 `validation_failed` must name it (or a field inside or around it). */
  field?: string;
  mustRefuse: boolean;
  /** A batch create answers 200 with the item's problem: read it from `results[0].error`. */
  batchItem?: boolean;
}

const ADMIN_TAGS = new Set(["tenants", "api-keys", "admin"]);
/** Operations a valid request of which would change the world the other cases stand on. */
const BODY_SKIPPED = new Set(["completeRun"]);

function baseBody(operationId: string, world: FuzzWorld): Json | undefined {
  const job: Json = {
    name: "fuzz-job",
    schedule: { type: "cron", expr: "0 9 * * MON-FRI", timezone: "America/New_York" },
    target: { url: `${world.targetUrl}/ok/fuzz`, method: "POST", headers: { "x-a": "1" }, body: { a: 1 } },
    retry: { max_attempts: 2, backoff: { initial: "30s", max: "1h" } },
    misfire: { policy: "skip", grace: "60s" },
    window: { between: ["08:00", "20:00"] },
    metadata: { team: "fuzz" },
  };
  const bases: Record<string, Json> = {
    createTenant: { name: "fuzz-tenant" },
    updateTenant: { name: "fuzz-victim" },
    putTenantLimits: { active_jobs: 100_000, weight: 1 },
    createApiKey: { tenant_id: world.victimTenantId, name: "fuzz" },
    previewSchedule: {
      schedule: { type: "cron", expr: "0 9 * * *", timezone: "UTC" },
      count: 3,
      from: "2026-12-01T00:00:00Z",
      window: { between: ["08:00", "20:00"], outside: "defer" },
    },
    createJobs: { jobs: [job] },
    bulkJobs: { action: "pause", filter: { name_prefix: "fuzz-nothing-has-this-" } },
    createJob: job,
    updateJob: { name: "fuzz-job", timeout: "30s", metadata: { team: "fuzz" } },
    triggerJob: {},
    backfillJob: { from: "2026-01-05T00:00:00Z", to: "2026-01-06T00:00:00Z" },
    createCalendar: { name: "fuzz-cal-new", timezone: "UTC", rules: [{ type: "date", date: "2027-01-01" }] },
    putCalendar: { timezone: "UTC", rules: [{ type: "date", date: "2027-01-01" }] },
    moveLegacyJobs: { limit: 1 },
  };
  return bases[operationId];
}

function pathFor(template: string, operationId: string, world: FuzzWorld): string {
  const id =
    operationId.includes("Tenant") || operationId.includes("SigningSecret")
      ? world.victimTenantId
      : world.jobId;
  return template.replace("{id}", id).replace("{name}", world.calendarName).replace("{key}", "fuzz-key");
}

const BAD_PATH_VALUES = [
  "x".repeat(3_000),
  "%F0%9F%98%80",
  "a%0D%0Ab",
  "%00",
  "..%2F..%2Fv1%2Fme",
  "%25",
  " ",
];
const BAD_QUERY_VALUES = ["", "x".repeat(5_000), "%F0%9F%98%80", "a%0D%0Ab", "-1", "1e999", "%5B%5D", "null"];

/** Every case of every /v1 operation, `perField` values per field. */
export function v1Cases(doc: Schema, world: FuzzWorld, random: () => number, perField: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const [template, operations] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const operationId = String(operation.operationId);
      const tags = (operation.tags ?? []) as string[];
      const token =
        tags.some((tag) => ADMIN_TAGS.has(tag)) || operationId === "getTzdata" ? world.adminToken : world.key;
      const upper = method.toUpperCase();
      const path = pathFor(template, operationId, world);
      const common = { method: upper, token };
      const parameters = (operation.parameters ?? []) as { in: string; name: string }[];
      for (const parameter of parameters.filter((one) => one.in === "path")) {
        for (const bad of shuffled(BAD_PATH_VALUES, random).slice(0, perField + 1)) {
          const badPath = template.replace(`{${parameter.name}}`, bad).replace(/\{[^}]+\}/g, "x_1");
          cases.push({
            ...common,
            label: `${operationId} path ${parameter.name}=${bad.slice(0, 20)}`,
            path: badPath,
            mustRefuse: false,
          });
        }
      }
      for (const parameter of parameters.filter((one) => one.in === "query")) {
        for (const bad of shuffled(BAD_QUERY_VALUES, random).slice(0, perField + 1)) {
          const separator = path.includes("?") ? "&" : "?";
          cases.push({
            ...common,
            label: `${operationId} query ${parameter.name}=${bad.slice(0, 20)}`,
            path: `${path}${separator}${parameter.name}=${bad}`,
            field: parameter.name,
            mustRefuse: bad === "" || bad.length > 1_000,
          });
        }
      }
      const requestBody = operation.requestBody as Schema | undefined;
      const base = baseBody(operationId, world);
      if (requestBody === undefined || base === undefined || BODY_SKIPPED.has(operationId)) continue;
      const schema = resolve(doc, ((requestBody.content as Schema)["application/json"] as Schema).schema);
      const batch = operationId === "createJobs";
      const fields = batch
        ? fieldsOf(
            doc,
            resolve(doc, (schema.properties as Record<string, Schema>).jobs?.items),
            (base as { jobs: Json[] }).jobs[0],
            "jobs.0",
          )
        : fieldsOf(doc, schema, base);
      for (const field of fields) {
        for (const value of valuesFor(doc, field, random, perField)) {
          // A merge patch's null resets a field: valid there.
          const mustRefuse = value.mustRefuse && !(upper === "PATCH" && value.value === null);
          cases.push({
            ...common,
            label: `${operationId} ${field.path} ${value.kind} ${JSON.stringify(value.value).slice(0, 30)}`,
            path,
            headers: { "content-type": "application/json" },
            body: JSON.stringify(withValue(base, field.path, value.value)),
            field: field.path,
            mustRefuse,
            batchItem: batch,
          });
        }
      }
    }
  }
  return cases;
}

export type { FuzzValue };
