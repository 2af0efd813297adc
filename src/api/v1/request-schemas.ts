// The v1 API's request bodies (the job create is the core's: src/core/jobs/job-spec.ts).
import { z } from "zod";
import { jobCreateSchema } from "../../core/jobs/job-spec";
import { previewInputSchema } from "../../core/jobs/preview";
import { debounceKeySchema } from "../../core/runs/debounce";
import { requestInstant } from "./schema-fields";

export const MAX_BATCH_JOBS = 1000;

const webhookUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an absolute http(s) URL",
  });

export const tenantCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).meta({ example: "acme" }),
  alert_webhook_url: webhookUrl.nullable().optional(),
});
export const tenantPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  alert_webhook_url: webhookUrl.nullable().optional(),
});
export const apiKeyCreateSchema = z.strictObject({
  tenant_id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(200).nullable().optional(),
});
/** The preview's body: the core's (src/core/jobs/preview.ts), checked as a create is. */
export const previewRequestSchema = previewInputSchema;
export const backfillRequestSchema = z.strictObject({ from: requestInstant, to: requestInstant });
/** What the batch route parses first; each item is then checked on its own as a JobCreate. */
export const jobBatchSchema = z.strictObject({
  jobs: z.array(z.unknown()).min(1).max(MAX_BATCH_JOBS, `must hold at most ${MAX_BATCH_JOBS} jobs`),
});
/** For the document: what an item of a batch must be. */
export const jobBatchDocSchema = z.strictObject({
  jobs: z.array(jobCreateSchema).min(1).max(MAX_BATCH_JOBS),
});
/** For the document: a JSON Merge Patch of the create fields, plus the version it replaces. */
export const jobPatchDocSchema = jobCreateSchema
  .partial()
  .extend({ version: z.number().int().min(1).optional() });

export const triggerRequestSchema = z.strictObject({
  debounce_key: debounceKeySchema.optional().meta({
    description: "Folds under this key instead of the job's `debounce.key` (needs `debounce` on the job)",
  }),
});
