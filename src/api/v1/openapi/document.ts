import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";

/** The document's head; its paths and schemas come from the route definitions. */
const DOCUMENT_HEAD = {
  openapi: "3.1.0",
  info: {
    title: "edgecron API",
    version: "1.0.0",
    description:
      "Edge-native distributed job scheduler. Errors are application/problem+json (RFC 9457) with a stable `code`; the code decides the status.",
  },
  servers: [{ url: "/" }],
  security: [{ bearer: [] }],
};

/** Built once per isolate from the app's route definitions: they do not change at run time. */
export function documentOf(app: OpenAPIHono<AppEnv>): () => Record<string, unknown> {
  let cached: Record<string, unknown> | null = null;
  return () => {
    if (cached === null) {
      app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
        type: "http",
        scheme: "bearer",
        description: "A tenant API key (ek_...) or the admin token",
      });
      cached = app.getOpenAPI31Document(DOCUMENT_HEAD) as unknown as Record<string, unknown>;
    }
    return cached;
  };
}
