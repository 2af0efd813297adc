// Field errors of a refused request, from zod's issues or our own checks: what every door and the
// application layer (src/service) refuse bad input with, before anything is stored.
import type { z } from "zod";
import { EdgecronError, type FieldError } from "./errors";

/** Every zod issue as a field error; unknown keys become one error per key, at that key. */
export function fieldErrorsOf(
  issues: readonly z.core.$ZodIssue[],
  prefix: (string | number)[] = [],
): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path.map((part) => String(part))];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        errors.push({ path: joinPath([...path, key]), message: "is not a known field" });
    } else {
      errors.push({ path: joinPath(path), message: issue.message });
    }
  }
  return errors;
}

export function joinPath(parts: (string | number)[]): string {
  return parts.map(String).join(".");
}

/** 400 `validation_failed` naming every bad field (the detail lists their paths). */
export function validationError(errors: FieldError[], detail?: string): EdgecronError {
  const fields = [...new Set(errors.map((error) => error.path || "(body)"))].join(", ");
  return new EdgecronError("validation_failed", detail ?? `The request has invalid fields: ${fields}`, {
    errors,
  });
}
