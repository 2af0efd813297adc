// The schemas the document names (components/schemas), each the same zod schema the routes
// use, given its component name. Importing @hono/zod-openapi first adds `.openapi()` to zod.
import "@hono/zod-openapi";
import { jobCreateSchema as jobCreate, scheduleSchema as schedule } from "../../core/job-spec";
import * as schemas from "../schemas";

export * from "../schemas";

export const problemSchema = schemas.problemSchema.openapi("Problem", {
  example: {
    type: "urn:edgecron:problem:validation_failed",
    title: "Bad Request",
    status: 400,
    detail: "The request has invalid fields: schedule.expr",
    code: "validation_failed",
    errors: [{ path: "schedule.expr", message: "is not a cron expression" }],
  },
});
export const scheduleSchema = schedule.openapi("Schedule");
export const jobCreateSchema = jobCreate.openapi("JobCreate", {
  example: {
    name: "nightly-report",
    schedule: { type: "cron", expr: "0 3 * * *", timezone: "Europe/Berlin" },
    target: { url: "https://example.com/hooks/report", method: "POST", body: { report: "daily" } },
  },
});
export const jobPatchDocSchema = schemas.jobPatchDocSchema.openapi("JobPatch");
export const jobBatchDocSchema = schemas.jobBatchDocSchema.openapi("JobBatchRequest");
export const batchResultSchema = schemas.batchResultSchema.openapi("JobBatchResult");
export const jobSchema = schemas.jobSchema.openapi("Job");
export const jobPageSchema = schemas.jobPageSchema.openapi("JobPage");
export const backfillRequestSchema = schemas.backfillRequestSchema.openapi("BackfillRequest", {
  example: { from: "2026-11-30T00:00:00Z", to: "2026-11-30T23:59:59Z" },
});
export const backfillResultSchema = schemas.backfillResultSchema.openapi("BackfillResult");
export const triggerResultSchema = schemas.triggerResultSchema.openapi("TriggerResult");
export const runSchema = schemas.runSchema.openapi("Run");
export const runPageSchema = schemas.runPageSchema.openapi("RunPage");
export const retryResultSchema = schemas.retryResultSchema.openapi("RetryResult");
export const deadLetterPageSchema = schemas.deadLetterPageSchema.openapi("DeadLetterPage");
export const redriveResultSchema = schemas.redriveResultSchema.openapi("RedriveResult");
export const alertPageSchema = schemas.alertPageSchema.openapi("AlertPage");
export const statsSchema = schemas.statsSchema.openapi("Stats");
export const previewRequestSchema = schemas.previewRequestSchema.openapi("PreviewRequest", {
  example: {
    schedule: { type: "cron", expr: "30 2 * * *", timezone: "America/New_York" },
    from: "2027-03-13T00:00:00Z",
    count: 3,
  },
});
export const previewResultSchema = schemas.previewResultSchema.openapi("PreviewResult");
export const tenantCreateSchema = schemas.tenantCreateSchema.openapi("TenantCreate", {
  example: { name: "acme", alert_webhook_url: "https://example.com/edgecron-alerts" },
});
export const tenantPatchSchema = schemas.tenantPatchSchema.openapi("TenantPatch");
export const tenantSchema = schemas.tenantSchema.openapi("Tenant");
export const tenantListSchema = schemas.tenantListSchema.openapi("TenantList");
export const apiKeyCreateSchema = schemas.apiKeyCreateSchema.openapi("ApiKeyCreate");
export const apiKeySchema = schemas.apiKeySchema.openapi("ApiKey");
export const apiKeyListSchema = schemas.apiKeyListSchema.openapi("ApiKeyList");
export const apiKeyRevokedSchema = schemas.apiKeyRevokedSchema.openapi("ApiKeyRevoked");
export const meSchema = schemas.meSchema.openapi("Me");
export const healthSchema = schemas.healthSchema.openapi("Health");
export const shardTzdataSchema = schemas.shardTzdataSchema.openapi("ShardTzdata");
export const tzdataStatusSchema = schemas.tzdataStatusSchema.openapi("TzdataStatus");
