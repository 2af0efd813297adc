// The body of `POST /v1/plans` and `POST /v1/applies`: a schedule file, whole or one page of it.
// A file of more jobs than one request holds (1 MiB, 1,000 jobs) goes in pages of jobs sorted by
// name; each page says which names it speaks for (`scope.names`), so `prune` in a page deletes
// only the managed jobs of its own name range and no page needs another's names.
import { z } from "zod";
import { managedBySchema } from "../jobs/managed-by";
import { fileCalendarSchema, fileJobSchema, MAX_FILE_CALENDARS } from "./file-schema";
import { compareNames } from "./names";

export const MAX_REQUEST_JOBS = 1000;

const bound = z.string().min(1).max(200).nullable();

/** `[from, to)` in code point order (names.ts); null: unbounded on that side. */
export const nameRangeSchema = z
  .strictObject({
    from: bound.default(null).meta({ description: "The first name of the range (null: from the first)" }),
    to: bound.default(null).meta({ description: "The first name after the range (null: to the last)" }),
  })
  .refine((range) => range.from === null || range.to === null || compareNames(range.from, range.to) < 0, {
    path: ["to"],
    message: "must sort after `from`",
  });

export const requestScopeSchema = z.strictObject({
  calendars: z.boolean().default(true).meta({
    description:
      "true: this request plans the file's calendars (creates, changes and, with `prune`, deletes them); false: `calendars` only resolve the names its jobs use",
  }),
  names: nameRangeSchema.nullable().default({ from: null, to: null }).meta({
    description:
      "The job names this request speaks for: its `jobs` are every job of the file in that range, and `prune` deletes the managed jobs of the range that are not among them. null: none (`jobs` must be empty)",
  }),
});

const requestFields = {
  managed_by: managedBySchema,
  scope: requestScopeSchema
    .default({ calendars: true, names: { from: null, to: null } })
    .meta({ description: "What this request speaks for; default: the whole file" }),
  prune: z.boolean().default(false).meta({
    description: "Delete the jobs and calendars this file manages that it no longer holds",
  }),
  adopt: z.boolean().default(false).meta({
    description:
      "Manage a job or calendar of the same name that no file manages, instead of refusing (its fields become the file's)",
  }),
};

/** What the routes parse first; each item is then checked on its own, as a batch create's. */
export const fileRequestSchema = z.strictObject({
  ...requestFields,
  calendars: z.array(z.unknown()).max(MAX_FILE_CALENDARS).default([]),
  jobs: z.array(z.unknown()).max(MAX_REQUEST_JOBS, `must hold at most ${MAX_REQUEST_JOBS} jobs`).default([]),
});

/** For the document: what the items must be. */
export const fileRequestDocSchema = z.strictObject({
  ...requestFields,
  calendars: z.array(fileCalendarSchema).max(MAX_FILE_CALENDARS).optional().meta({
    description: "Every calendar of the file (also on a page that does not plan them: see `scope`)",
  }),
  jobs: z.array(fileJobSchema).max(MAX_REQUEST_JOBS).optional(),
});

export type FileRequest = z.output<typeof fileRequestSchema>;
export type FileRequestInput = z.input<typeof fileRequestDocSchema>;
export type NameRange = z.output<typeof nameRangeSchema>;
