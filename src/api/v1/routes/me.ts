import { createRoute } from "@hono/zod-openapi";
import { meSchema } from "../openapi/components";
import { AUTH_ERRORS, apiRouter, defineRoute, json, problems } from "../openapi/define";

export const me = apiRouter();

defineRoute(
  me,
  createRoute({
    method: "get",
    path: "/",
    operationId: "getMe",
    summary: "Who is calling: the admin token or a tenant's key",
    tags: ["meta"],
    responses: { 200: json(meSchema, "The caller"), ...problems(...AUTH_ERRORS) },
  }),
  (c) => {
    const caller = c.get("caller");
    return c.json({ role: caller.role, tenant_id: caller.tenantId });
  },
);
