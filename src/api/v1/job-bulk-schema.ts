// The body and answer of POST /v1/jobs/bulk (./job-bulk.ts): zod only, so the typed client can
// take its types from here.
import { z } from "zod";

const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const bulkFilterSchema = z.strictObject({
  name_prefix: z.string().min(1).max(200).optional(),
  status: z.enum(["ACTIVE", "PAUSED", "COMPLETED"]).optional(),
  created_before: z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" }).optional(),
  metadata: z
    .record(z.string(), metadataValue)
    .optional()
    .meta({ description: "Every key given must equal the job's metadata value" }),
});

export const jobBulkSchema = z.strictObject({
  action: z.enum(["pause", "resume", "delete"]),
  filter: bulkFilterSchema.default({}),
  all: z
    .literal(true)
    .optional()
    .meta({ description: "Required to act on every job when `filter` names no field" }),
});

export const jobBulkResultSchema = z.object({
  matched: z.number().int().min(0).meta({ description: "Jobs the filter selected" }),
  done: z.number().int().min(0).meta({
    description: "Of those, the jobs now in the action's state on their shard (changed now, or already)",
  }),
});

export type JobBulk = z.output<typeof jobBulkSchema>;
