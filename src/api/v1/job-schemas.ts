// The v1 API's answers about jobs: a job, a page of them, a batch's results, a preview.
import { z } from "zod";
import { jobCreateSchema } from "../../core/jobs/job-spec";
import { OUTSIDE_WINDOW_FOLDED_REASON, OUTSIDE_WINDOW_REASON } from "../../core/schedules/delivery-window";
import { SEARCH_STOP_REASONS } from "../../core/schedules/search-bound";
import { problemSchema } from "./problem-schema";
import { jobStatusSchema } from "./query-schemas";
import { count, page, time } from "./schema-fields";

/** Where a bound stopped a search for instants that run (src/core/schedules/search-bound.ts). */
export const searchStopSchema = z
  .object({
    reason: z.enum(SEARCH_STOP_REASONS).meta({
      description:
        "horizon: no instant left to run within 5 years of the previous one; instant_limit: 25,000 instants skipped by exclusions or the delivery window were examined",
    }),
    searched_through: time.meta({
      description: "The search examined the schedule up to here; later instants may run",
    }),
    detail: z.string(),
  })
  .meta({
    description:
      "Present only when the list is shorter than asked because the search for the next instant that runs (behind exclusions or a delivery window) stopped at its bound",
  });

export const jobSchema = jobCreateSchema.extend({
  id: z.string().meta({ example: "job_01JDXS3M0000000000000000AB" }),
  status: jobStatusSchema,
  version: z.number().int(),
  shard: z.number().int(),
  next_fire_times: z.array(time),
  next_fire_times_stopped: searchStopSchema.optional(),
  created_at: time,
  updated_at: time,
});

export const batchResultSchema = z.object({
  created: count,
  failed: count,
  results: z.array(
    z.union([
      z.object({ index: count, status: z.literal(201), job: jobSchema }),
      z.object({ index: count, status: z.literal(400), error: problemSchema }),
    ]),
  ),
});

export const previewResultSchema = z.object({
  fire_times: z.array(time),
  excluded: z.array(time).meta({ description: "Instants the exclusions left out, up to the last fire time" }),
  fires: z
    .array(z.object({ scheduled_at: time, fire_at: time }))
    .optional()
    .meta({ description: "With `window` or `flexible_window`: each run's instant and where it fires" }),
  skipped: z
    .array(
      z.object({ scheduled_at: time, reason: z.enum([OUTSIDE_WINDOW_REASON, OUTSIDE_WINDOW_FOLDED_REASON]) }),
    )
    .optional()
    .meta({ description: "With `window`: the instants it skips (or folds into a deferred run)" }),
  stopped: searchStopSchema.optional(),
});

export const jobPageSchema = page(jobSchema);
