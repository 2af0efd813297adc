// The answer of `POST /v1/plans` and `POST /v1/applies`: what apply would do (or did) to make the
// tenant what the file says, field by field. One definition for the routes, the OpenAPI document
// and the typed client.
import { z } from "zod";
import { managedBySchema } from "../jobs/managed-by";

const count = z.number().int().min(0);

export const fieldChangeSchema = z
  .object({
    path: z.string().meta({ example: "schedule.expr" }),
    before: z.unknown().optional().meta({ description: "What the tenant has (absent: the field is new)" }),
    after: z.unknown().optional().meta({ description: "What the file says (absent: the field goes)" }),
  })
  .meta({ description: "One field that differs; credential-like header values read `(hidden)`" });

const index = count.meta({ description: "The entry's position in the request's `jobs` (or `calendars`)" });
const changes = z.array(fieldChangeSchema);

export const jobPlanEntrySchema = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("create"),
    index,
    name: z.string(),
    paused: z.boolean().meta({ description: "Created paused (the file says `paused: true`)" }),
    id: z.string().optional().meta({ description: "The new job's id (an apply's answer only)" }),
  }),
  z.object({ action: z.literal("update"), index, name: z.string(), id: z.string(), changes }),
  z.object({
    action: z.literal("adopt"),
    index,
    name: z.string(),
    id: z.string(),
    changes: changes.meta({ description: "`managed_by`, then every field the file changes" }),
  }),
  z.object({
    action: z.literal("delete"),
    name: z.string(),
    id: z.string(),
    reason: z.enum(["not_in_file", "duplicate"]).meta({
      description:
        "not_in_file: the file no longer holds it; duplicate: a second job of a name the file holds (the oldest stays)",
    }),
  }),
]);

export const calendarPlanEntrySchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("create"), index, name: z.string() }),
  z.object({ action: z.literal("update"), index, name: z.string(), changes }),
  z.object({ action: z.literal("adopt"), index, name: z.string(), changes }),
  z.object({ action: z.literal("delete"), name: z.string() }),
]);

export const planNoteSchema = z.object({
  name: z.string(),
  id: z.string().optional(),
  message: z
    .string()
    .meta({ example: "PAUSED outside the file, which does not say `paused`: apply leaves it" }),
});

const counts = z.object({ create: count, update: count, adopt: count, delete: count, unchanged: count });

export const filePlanSchema = z.object({
  managed_by: managedBySchema,
  prune: z.boolean(),
  summary: z.object({ jobs: counts, calendars: counts }),
  jobs: z
    .array(jobPlanEntrySchema)
    .meta({ description: "What changes, job by job (unchanged jobs are counted only)" }),
  calendars: z.array(calendarPlanEntrySchema),
  notes: z
    .array(planNoteSchema)
    .meta({ description: "What apply leaves alone that the user may want to know of (no change)" }),
});

export const fileApplySchema = filePlanSchema.extend({
  applied: z.literal(true).meta({ description: "Every change of the plan is made" }),
});

export type FieldChangeEntry = z.output<typeof fieldChangeSchema>;
export type JobPlanEntry = z.output<typeof jobPlanEntrySchema>;
export type CalendarPlanEntry = z.output<typeof calendarPlanEntrySchema>;
export type PlanNote = z.output<typeof planNoteSchema>;
export type PlanCounts = z.output<typeof counts>;
export type FilePlan = z.output<typeof filePlanSchema>;
export type FileApply = z.output<typeof fileApplySchema>;
