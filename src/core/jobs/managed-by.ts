// The ownership label of a job or calendar that a schedule file manages (docs/SCHEDULES-AS-CODE.md):
// the file's name, such as "schedules.yaml". `edgecron plan` compares what carries it with the
// file, and `--prune` deletes only what carries it.
import { z } from "zod";

export const MAX_MANAGED_BY_LENGTH = 200;

const isControl = (char: string) => {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || (code >= 0x7f && code < 0xa0);
};

/**
 * A file's label: printable text (it is shown in the console and in plans), 1-200 characters.
 * @example managedBySchema.parse("payments/schedules.yaml") // "payments/schedules.yaml"
 */
export const managedBySchema = z
  .string()
  .min(1)
  .max(MAX_MANAGED_BY_LENGTH)
  .refine((label) => ![...label].some(isControl), { message: "must not hold control characters" })
  .refine((label) => label.trim() === label, { message: "must not start or end with a space" })
  .meta({
    description:
      "The schedule file that manages this (`edgecron apply`): its plans compare it with the file, and `--prune` may delete it",
    example: "schedules.yaml",
  });
