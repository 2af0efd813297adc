// The v1 API's calendars: the core's create and replace bodies, and what a read answers.
import { z } from "zod";
import { managedBySchema } from "../../core/jobs/managed-by";
import { calendarCreateSchema, calendarReplaceSchema } from "../../core/schedules/exclusions";
import { list, time } from "./schema-fields";

export { calendarCreateSchema, calendarReplaceSchema };
export const calendarParams = z.object({
  name: z.string().meta({ param: { name: "name", in: "path" }, example: "uk-holidays" }),
});
export const calendarSchema = calendarReplaceSchema.extend({
  name: z.string().meta({ example: "uk-holidays" }),
  revision: z.number().int().meta({ description: "Grows by one with every replace" }),
  managed_by: managedBySchema.nullable().meta({
    description: "The schedule file that manages the calendar (`edgecron apply`); null: none",
  }),
  created_at: time,
  updated_at: time,
});
export const calendarDetailSchema = calendarSchema.extend({
  jobs: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .meta({ description: "Jobs that name it (at most 100)" }),
});
export const calendarListSchema = list(calendarSchema);
