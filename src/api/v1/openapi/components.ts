// The schemas the document names (components/schemas), each the same zod schema the routes
// use, given its component name through zod's own `.meta({ id })`, which the generator reads as
// the component name. Not `.openapi()`: it exists only on schemas created after
// @hono/zod-openapi extended zod, so it made module import order matter.
import { jobCreateSchema as jobCreate, scheduleSchema as schedule } from "../../../core/jobs/job-spec";
import * as bulk from "../job-bulk-schema";
import * as schemas from "../schemas";

export * from "../schemas";

export const problemSchema = schemas.problemSchema.meta({
  id: "Problem",
  example: {
    type: "urn:edgecron:problem:validation_failed",
    title: "Bad Request",
    status: 400,
    detail: "The request has invalid fields: schedule.expr",
    code: "validation_failed",
    errors: [{ path: "schedule.expr", message: "is not a cron expression" }],
  },
});
export const scheduleSchema = schedule.meta({ id: "Schedule" });
export const jobCreateSchema = jobCreate.meta({
  id: "JobCreate",
  example: {
    name: "nightly-report",
    schedule: { type: "cron", expr: "0 3 * * *", timezone: "Europe/Berlin" },
    target: { url: "https://example.com/hooks/report", method: "POST", body: { report: "daily" } },
  },
});
export const jobPatchDocSchema = schemas.jobPatchDocSchema.meta({ id: "JobPatch" });
export const jobBatchDocSchema = schemas.jobBatchDocSchema.meta({ id: "JobBatchRequest" });
export const batchResultSchema = schemas.batchResultSchema.meta({ id: "JobBatchResult" });
export const jobBulkSchema = bulk.jobBulkSchema.meta({
  id: "JobBulk",
  example: { action: "pause", filter: { name_prefix: "report-" } },
});
export const jobBulkResultSchema = bulk.jobBulkResultSchema.meta({ id: "JobBulkResult" });
export const jobBulkOperationSchema = bulk.jobBulkOperationSchema.meta({ id: "JobBulkOperation" });
export const jobSchema = schemas.jobSchema.meta({ id: "Job" });
export const jobPageSchema = schemas.jobPageSchema.meta({ id: "JobPage" });
export const backfillRequestSchema = schemas.backfillRequestSchema.meta({
  id: "BackfillRequest",
  example: { from: "2026-11-30T00:00:00Z", to: "2026-11-30T23:59:59Z" },
});
export const backfillResultSchema = schemas.backfillResultSchema.meta({ id: "BackfillResult" });
export const triggerResultSchema = schemas.triggerResultSchema.meta({ id: "TriggerResult" });
export const runSchema = schemas.runSchema.meta({ id: "Run" });
export const runPageSchema = schemas.runPageSchema.meta({ id: "RunPage" });
export const retryResultSchema = schemas.retryResultSchema.meta({ id: "RetryResult" });
export const completionBodySchema = schemas.completionBodySchema.meta({
  id: "RunCompletion",
  example: { status: "succeeded", result: { rows: 1200 } },
});
export const completeResultSchema = schemas.completeResultSchema.meta({ id: "CompleteResult" });
export const heartbeatResultSchema = schemas.heartbeatResultSchema.meta({ id: "HeartbeatResult" });
export const deadLetterPageSchema = schemas.deadLetterPageSchema.meta({ id: "DeadLetterPage" });
export const redriveResultSchema = schemas.redriveResultSchema.meta({ id: "RedriveResult" });
export const alertSchema = schemas.alertSchema.meta({ id: "Alert" });
export const alertPageSchema = schemas.alertPageSchema.meta({ id: "AlertPage" });
export const statsSchema = schemas.statsSchema.meta({ id: "Stats" });
export const previewRequestSchema = schemas.previewRequestSchema.meta({
  id: "PreviewRequest",
  example: {
    schedule: { type: "cron", expr: "30 2 * * *", timezone: "America/New_York" },
    from: "2027-03-13T00:00:00Z",
    count: 3,
  },
});
export const previewResultSchema = schemas.previewResultSchema.meta({ id: "PreviewResult" });
export const tenantCreateSchema = schemas.tenantCreateSchema.meta({
  id: "TenantCreate",
  example: { name: "acme", alert_webhook_url: "https://example.com/edgecron-alerts" },
});
export const tenantPatchSchema = schemas.tenantPatchSchema.meta({ id: "TenantPatch" });
export const tenantSchema = schemas.tenantSchema.meta({ id: "Tenant" });
export const tenantListSchema = schemas.tenantListSchema.meta({ id: "TenantList" });
export const flowControlStateSchema = schemas.flowControlStateSchema.meta({ id: "FlowControlState" });
export const flowControlPageSchema = schemas.flowControlPageSchema.meta({ id: "FlowControlPage" });
export const tenantLimitsSchema = schemas.tenantLimitsSchema.meta({ id: "TenantLimits" });
export const tenantLimitsPutSchema = schemas.tenantLimitsPutSchema.meta({
  id: "TenantLimitsPut",
  example: {
    active_jobs: 500,
    creates_per_second: 20,
    triggers_per_second: 50,
    concurrent_calls: null,
    weight: 2,
  },
});
export const apiKeyCreateSchema = schemas.apiKeyCreateSchema.meta({ id: "ApiKeyCreate" });
export const apiKeySchema = schemas.apiKeySchema.meta({ id: "ApiKey" });
export const apiKeyListSchema = schemas.apiKeyListSchema.meta({ id: "ApiKeyList" });
export const apiKeyRevokedSchema = schemas.apiKeyRevokedSchema.meta({ id: "ApiKeyRevoked" });
export const meSchema = schemas.meSchema.meta({ id: "Me" });
export const healthSchema = schemas.healthSchema.meta({ id: "Health" });
export const shardTzdataSchema = schemas.shardTzdataSchema.meta({ id: "ShardTzdata" });
export const tzdataStatusSchema = schemas.tzdataStatusSchema.meta({ id: "TzdataStatus" });
