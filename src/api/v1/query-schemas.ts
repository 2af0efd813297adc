// The v1 API's query strings: page sizes and cursors, and the filters of its lists.
import { z } from "zod";
import { ALERT_KINDS, ALERT_STATES } from "../../core/alerts/alerts";
import { filterText } from "../../core/common/filter-values";
import { JOB_STATUSES, RUN_STATES } from "../../core/runs/run-state";

export const MAX_NEXT_FIRES = 100;

const LIMIT_MESSAGE = "must be an integer from 1 to 200";

/**
 * Decimal digits only: a plain coerce would also take `0x10`, `1e2` or ` 5` (Number() parses
 * them), so a typo could silently page by a different size than the client meant.
 */
export const limitSchema = z
  .string()
  .regex(/^\d{1,3}$/, LIMIT_MESSAGE)
  .transform(Number)
  .pipe(z.number().int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(200, LIMIT_MESSAGE))
  .default(50)
  .meta({ description: "Page size, 1 to 200 (default 50)", example: "50" });

const cursor = (maxLength: number) =>
  z.string().max(maxLength).optional().meta({ description: "`next_cursor` of the previous page" });

export const pageQuerySchema = z.strictObject({ limit: limitSchema, cursor: cursor(400) });
export const jobStatusSchema = z.enum(JOB_STATUSES);
export const runStateSchema = z.enum(RUN_STATES);
export const listJobsQuerySchema = z.strictObject({
  status: jobStatusSchema.optional(),
  name: filterText(200).optional().meta({ description: "Name prefix (not empty)" }),
  limit: limitSchema,
  cursor: cursor(200),
});
const NEXT_MESSAGE = `must be an integer from 0 to ${MAX_NEXT_FIRES}`;
export const getJobQuerySchema = z.object({
  // Digits only, as `limit`: z.coerce read "" as 0 and "1e2" as 100.
  next: z
    .string()
    .regex(/^\d{1,3}$/, NEXT_MESSAGE)
    .transform(Number)
    .pipe(z.number().int().min(0, NEXT_MESSAGE).max(MAX_NEXT_FIRES, NEXT_MESSAGE))
    .default(5)
    .meta({ description: `How many next_fire_times (0 to ${MAX_NEXT_FIRES})`, example: "5" }),
});
export const listRunsQuerySchema = pageQuerySchema.extend({
  state: runStateSchema.optional(),
  job_id: filterText(100).optional(),
});
export const listDeadLettersQuerySchema = pageQuerySchema.extend({ job_id: filterText(100).optional() });
export const alertKindSchema = z.enum(ALERT_KINDS);
export const alertStateSchema = z.enum(ALERT_STATES);
export const listAlertsQuerySchema = pageQuerySchema.extend({
  kind: alertKindSchema.optional(),
  state: alertStateSchema.optional().meta({
    description: "open (nobody acted), acknowledged (seen, unresolved) or resolved",
  }),
});
export const listApiKeysQuerySchema = z.strictObject({ tenant_id: filterText(100) });
