// Filters never widen: an empty value ("", {}, [], null) in a filter of a bulk action or a list
// would select as much as no filter at all (or, for `{}`, exactly everything), so every filter
// refuses one, naming it, rather than reading it as "any". One rule for the v1 schemas.
import { z } from "zod";

export const EMPTY_FILTER_MESSAGE =
  "must not be empty: an empty filter would select everything (leave the field out to not filter by it)";

/** A text filter (an id, a name prefix): 1 to `max` characters. */
export function filterText(max: number) {
  return z.string().min(1, EMPTY_FILTER_MESSAGE).max(max);
}

/** True for the empty values a filter refuses: "", null, [] and {}. */
export function isEmptyFilterValue(value: unknown): boolean {
  if (value === "" || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

const metadataValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * A metadata filter: `{key: value}`, every key given must equal the job's metadata value. At least
 * one key, and no empty value ("" or null: see EMPTY_FILTER_MESSAGE); kept exactly as sent (not
 * z.record, which drops a `__proto__` key and so would widen the filter).
 */
export const metadataFilterSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: "custom", message: "must be an object of metadata keys to the values to match" });
      return;
    }
    if (Object.keys(value).length === 0) ctx.addIssue({ code: "custom", message: EMPTY_FILTER_MESSAGE });
    for (const [key, entry] of Object.entries(value)) {
      if (isEmptyFilterValue(entry))
        ctx.addIssue({ code: "custom", path: [key], message: EMPTY_FILTER_MESSAGE });
      else if (!metadataValue.safeParse(entry).success)
        ctx.addIssue({ code: "custom", path: [key], message: "must be a string, a number or a boolean" });
    }
  })
  .meta({
    type: "object",
    additionalProperties: { type: ["string", "number", "boolean"] },
    minProperties: 1,
  }) as unknown as z.ZodType<Record<string, string | number | boolean>>;
