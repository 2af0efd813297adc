import { Hono } from "hono";
import { buildOpenApiDocument } from "../openapi/document";
import type { AppEnv } from "../types";

export const openapi = new Hono<AppEnv>();

/** Built once per isolate: the schemas do not change at run time. */
let documentCache: Record<string, unknown> | null = null;

openapi.get("/", (c) => {
  documentCache ??= buildOpenApiDocument();
  return c.json(documentCache);
});
