import { createRoute } from "@hono/zod-openapi";
import { alertResource, listAlerts } from "../../db/alerts";
import { decodeTimeCursor, encodeCursor, pageOf } from "../cursor";
import { tenantScope } from "../middleware/auth";
import { apiRouter, defineRoute, json, problems, TENANT_ERRORS, tenantHeaders } from "../openapi/define";
import { alertPageSchema, listAlertsQuerySchema } from "../openapi/components";

export const alerts = apiRouter();

alerts.use("*", tenantScope);

defineRoute(
  alerts,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listAlerts",
    summary: "List alerts, newest first",
    tags: ["alerts"],
    request: { query: listAlertsQuerySchema, headers: tenantHeaders },
    responses: {
      200: json(alertPageSchema, "A page of alerts"),
      ...problems(...TENANT_ERRORS, "validation_failed", "invalid_cursor"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const rows = await listAlerts(c.env.DB, c.get("tenantId"), {
      kind: query.kind,
      cursor: decodeTimeCursor(query.cursor),
      limit: query.limit + 1,
    });
    const { page, nextCursor } = pageOf(rows, query.limit, (row) =>
      encodeCursor([row.created_at_ms, row.id]),
    );
    return c.json({ data: page.map(alertResource), next_cursor: nextCursor });
  },
);
