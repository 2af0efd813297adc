// The schemas the document names (components/schemas), each the same zod schema the routes
// use, given its component name. Importing @hono/zod-openapi first adds `.openapi()` to zod.
import "@hono/zod-openapi";
import { jobCreateSchema as jobCreate, scheduleSchema as schedule } from "../../core/job-spec";
import * as schemas from "../schemas";

export * from "../schemas";

export const problemSchema = schemas.problemSchema.openapi("Problem");
export const scheduleSchema = schedule.openapi("Schedule");
export const jobCreateSchema = jobCreate.openapi("JobCreate");
export const jobPatchDocSchema = schemas.jobPatchDocSchema.openapi("JobPatch");
export const jobBatchDocSchema = schemas.jobBatchDocSchema.openapi("JobBatchRequest");
export const batchResultSchema = schemas.batchResultSchema.openapi("JobBatchResult");
export const jobSchema = schemas.jobSchema.openapi("Job");
export const jobPageSchema = schemas.jobPageSchema.openapi("JobPage");
export const backfillRequestSchema = schemas.backfillRequestSchema.openapi("BackfillRequest");
export const backfillResultSchema = schemas.backfillResultSchema.openapi("BackfillResult");
export const triggerResultSchema = schemas.triggerResultSchema.openapi("TriggerResult");
export const runSchema = schemas.runSchema.openapi("Run");
export const runPageSchema = schemas.runPageSchema.openapi("RunPage");
export const retryResultSchema = schemas.retryResultSchema.openapi("RetryResult");
export const deadLetterPageSchema = schemas.deadLetterPageSchema.openapi("DeadLetterPage");
export const redriveResultSchema = schemas.redriveResultSchema.openapi("RedriveResult");
export const alertPageSchema = schemas.alertPageSchema.openapi("AlertPage");
export const statsSchema = schemas.statsSchema.openapi("Stats");
export const previewRequestSchema = schemas.previewRequestSchema.openapi("PreviewRequest");
export const previewResultSchema = schemas.previewResultSchema.openapi("PreviewResult");
export const tenantCreateSchema = schemas.tenantCreateSchema.openapi("TenantCreate");
export const tenantPatchSchema = schemas.tenantPatchSchema.openapi("TenantPatch");
export const tenantSchema = schemas.tenantSchema.openapi("Tenant");
export const tenantListSchema = schemas.tenantListSchema.openapi("TenantList");
export const apiKeyCreateSchema = schemas.apiKeyCreateSchema.openapi("ApiKeyCreate");
export const apiKeySchema = schemas.apiKeySchema.openapi("ApiKey");
export const apiKeyListSchema = schemas.apiKeyListSchema.openapi("ApiKeyList");
export const apiKeyRevokedSchema = schemas.apiKeyRevokedSchema.openapi("ApiKeyRevoked");
export const meSchema = schemas.meSchema.openapi("Me");
export const healthSchema = schemas.healthSchema.openapi("Health");
