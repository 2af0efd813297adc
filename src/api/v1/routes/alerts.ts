import { createRoute } from "@hono/zod-openapi";
import { alertResource } from "../../../service/alert-bodies";
import { actOnAlert, alertNotFound, listTenantAlerts } from "../../../service/alerts";
import { requireForeignId } from "../../../service/ids";
import { tenantScope } from "../../http/auth";
import { timeOrderedPage } from "../list-route";
import { alertPageSchema, alertSchema, listAlertsQuerySchema } from "../openapi/components";
import {
  apiRouter,
  defineRoute,
  idParams,
  json,
  problems,
  TENANT_ERRORS,
  tenantHeaders,
} from "../openapi/define";

export const alerts = apiRouter();

alerts.use("*", tenantScope);

defineRoute(
  alerts,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listAlerts",
    summary: "List alerts, newest first (filter by kind and state)",
    tags: ["alerts"],
    request: { query: listAlertsQuerySchema, headers: tenantHeaders },
    responses: {
      200: json(alertPageSchema, "A page of alerts"),
      ...problems(...TENANT_ERRORS, "validation_failed", "invalid_cursor"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const page = await timeOrderedPage(
      query,
      (window) =>
        listTenantAlerts(c.env, c.get("tenantId"), { kind: query.kind, state: query.state, ...window }),
      (row) => row.created_at_ms,
      alertResource,
    );
    return c.json(page);
  },
);

/** Acknowledge and resolve: tenant-scoped, idempotent (the first time stays), 200 with the alert. */
const ACTIONS = [
  {
    path: "/{id}/ack",
    operationId: "acknowledgeAlert",
    summary: "Acknowledge an alert: seen, still unresolved (a resolved alert stays resolved)",
    action: "acknowledge",
  },
  {
    path: "/{id}/resolve",
    operationId: "resolveAlert",
    summary: "Resolve an alert",
    action: "resolve",
  },
] as const;

for (const action of ACTIONS) {
  defineRoute(
    alerts,
    createRoute({
      method: "post",
      path: action.path,
      operationId: action.operationId,
      summary: action.summary,
      tags: ["alerts"],
      request: { params: idParams("alt_3f9a0c0d1e2f4a5b6c7d8e9f0a1b2c3d"), headers: tenantHeaders },
      responses: {
        200: json(alertSchema, "The alert as it stands now"),
        ...problems(...TENANT_ERRORS, "alert_not_found"),
      },
    }),
    async (c) => {
      const id = requireForeignId(c.req.param("id"), alertNotFound);
      const row = await actOnAlert(c.env, c.get("tenantId"), id, action.action, Date.now());
      return c.json(alertResource(row));
    },
  );
}
