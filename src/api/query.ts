import type { Context } from "hono";
import type { z } from "zod";
import { parseWith } from "./body";

/** Query parameters through a schema (400 `validation_failed` naming each parameter). Unknown ones are ignored. */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return parseWith(schema, c.req.query());
}
