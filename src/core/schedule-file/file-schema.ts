// What a schedule file holds (docs/SCHEDULES-AS-CODE.md): a tenant's desired jobs and calendars,
// in YAML or JSON. Built from the API's own schemas (the job create body of ../jobs/job-spec.ts, the
// calendar body of ../schedules/exclusions.ts), so the file, the API and the published JSON Schema
// (./json-schema.ts) agree on every field.
import { z } from "zod";
import { jobCreateSchema } from "../jobs/job-spec";
import { managedBySchema } from "../jobs/managed-by";
import { calendarCreateSchema } from "../schedules/exclusions";

/** The format's version: a later, incompatible format gets another number. */
export const SCHEDULE_FILE_VERSION = 1;
/** A tenant holds at most 1,000 calendars (GET /v1/calendars lists them all). */
export const MAX_FILE_CALENDARS = 1000;

/**
 * One job of a file: every field of a job create except the ones the file decides (`managed_by`)
 * or the QStash API sets (`qstash`), plus `paused`, the desired pause state.
 */
export const fileJobSchema = jobCreateSchema.omit({ qstash: true, managed_by: true }).extend({
  paused: z.boolean().optional().meta({
    description:
      "true: the job is paused (apply pauses it); false: it runs (apply resumes it); absent: apply leaves its pause state as it is",
  }),
});

/** One calendar of a file: the body of `POST /v1/calendars`. */
export const fileCalendarSchema = calendarCreateSchema;

const fileFields = {
  $schema: z.string().optional().meta({ description: "The JSON Schema editors validate the file with" }),
  version: z.literal(SCHEDULE_FILE_VERSION).optional().meta({ description: "The format's version: 1" }),
  managed_by: managedBySchema.optional().meta({
    description:
      "The label of what this file manages (default: the file's name). Two files of one tenant need two labels",
  }),
};

/** The whole file, for the published JSON Schema: every item checked as the API checks it. */
export const scheduleFileSchema = z
  .strictObject({
    ...fileFields,
    calendars: z.array(fileCalendarSchema).max(MAX_FILE_CALENDARS).optional(),
    jobs: z.array(fileJobSchema).optional().meta({ description: "The jobs, each identified by its name" }),
  })
  .meta({
    title: "edgecron schedule file",
    description: "A tenant's desired jobs and calendars, for `edgecron plan` and `edgecron apply`",
  });

/**
 * The file's outline, which the CLI checks before it sends anything: the top-level fields and that
 * `jobs` and `calendars` are lists. The items are the API's to check (it knows the tenant's
 * calendars, bindings and target policy), with the same messages as every other create.
 */
export const scheduleFileOutlineSchema = z.strictObject({
  ...fileFields,
  calendars: z.array(z.unknown()).max(MAX_FILE_CALENDARS).optional(),
  jobs: z.array(z.unknown()).optional(),
});

export type ScheduleFile = z.input<typeof scheduleFileSchema>;
export type FileJob = z.input<typeof fileJobSchema>;
export type FileCalendar = z.input<typeof fileCalendarSchema>;
