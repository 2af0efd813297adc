// The published JSON Schema of a schedule file (`edgecron schema`), generated from the same zod
// definitions the API validates with (./file-schema.ts), so an editor validates and completes
// exactly what an apply accepts.
import { z } from "zod";
import { scheduleFileSchema } from "./file-schema";

/**
 * The JSON Schema (draft 7, which editors' YAML and JSON servers read) of a file as written: the
 * input side (defaults optional). A field zod cannot state (a refinement) is left open here, and
 * the API still checks it.
 */
export function scheduleFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scheduleFileSchema, {
    io: "input",
    unrepresentable: "any",
    target: "draft-7",
  }) as Record<string, unknown>;
}
