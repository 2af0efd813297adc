// The body and answer of POST /v1/jobs/bulk (./routes/job-bulk.ts): zod only, so the typed client can
// take its types from here.
import { z } from "zod";
import { filterText, metadataFilterSchema } from "../../core/common/filter-values";

/** Fields combine with AND; each refuses an empty value (src/core/common/filter-values.ts). */
export const bulkFilterSchema = z.strictObject({
  name_prefix: filterText(200).optional(),
  status: z.enum(["ACTIVE", "PAUSED", "COMPLETED"]).optional(),
  created_before: z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" }).optional(),
  metadata: metadataFilterSchema
    .optional()
    .meta({ description: "Every key given must equal the job's metadata value (at least one key)" }),
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

/** A bulk call that matched more than it does before answering (202), and its progress. */
export const jobBulkOperationSchema = z.object({
  id: z.string().meta({ example: "bop_5f0c2d8e9a1b4c7d8e9f0a1b2c3d4e5f" }),
  action: z.enum(["pause", "resume", "delete"]),
  matched: z.number().int().min(0).meta({ description: "Jobs the filter selected" }),
  done: z
    .number()
    .int()
    .min(0)
    .meta({ description: "Of those, the jobs now in the action's state on their shard" }),
  state: z.enum(["running", "succeeded", "failed", "interrupted"]).meta({
    description: "interrupted: it stopped moving (its worker ended); repeat the call to finish it",
  }),
  error: z.string().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  status_url: z.string().meta({ description: "Where to read its progress: GET it" }),
});

export type JobBulk = z.output<typeof jobBulkSchema>;
