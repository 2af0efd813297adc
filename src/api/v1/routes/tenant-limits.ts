// A tenant's limits (admission control): the admin sets them, the tenant reads its own.
import { createRoute } from "@hono/zod-openapi";
import {
  TENANT_LIMIT_NAMES,
  type TenantLimitName,
  type TenantLimits,
} from "../../../core/load/tenant-limits";
import { readTenant } from "../../../service/tenants/manage-tenants";
import { tenantNotFound } from "../../../service/tenants/suspend-tenant";
import {
  readTenantLimits,
  replaceTenantLimits,
  type TenantLimitsView,
} from "../../../service/tenants/tenant-limits";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
import { tenantLimitsPutSchema, tenantLimitsSchema } from "../openapi/components";
import {
  ADMIN_ERRORS,
  apiRouter,
  BODY_ERRORS,
  defineRoute,
  idParams,
  json,
  jsonBody,
  problems,
} from "../openapi/define";

const tags = ["tenants"];
const params = idParams("ten_01JDXS3M0000000000000000AB");
const limitsOk = json(tenantLimitsSchema, "The tenant's limits as they apply now");

export const tenantLimits = apiRouter();

defineRoute(
  tenantLimits,
  createRoute({
    method: "get",
    path: "/{id}/limits",
    operationId: "getTenantLimits",
    summary: "Read a tenant's limits (admin, or that tenant's key)",
    tags,
    request: { params },
    responses: { 200: limitsOk, ...problems(...ADMIN_ERRORS, "tenant_not_found") },
  }),
  async (c) => {
    const caller = c.get("caller");
    const { id } = await readTenant(c.env, c.req.param("id"));
    if (caller.role === "tenant" && caller.tenantId !== id) throw tenantNotFound();
    return c.json(limitsResource(await readTenantLimits(c.env, id)));
  },
);

defineRoute(
  tenantLimits,
  createRoute({
    method: "put",
    path: "/{id}/limits",
    operationId: "putTenantLimits",
    summary:
      "Replace a tenant's limits and fair-share weight (admin): absent fields take the defaults, null is no limit",
    tags,
    middleware: [requireAdmin],
    request: { params, body: jsonBody(tenantLimitsPutSchema) },
    responses: { 200: limitsOk, ...problems(...ADMIN_ERRORS, ...BODY_ERRORS, "tenant_not_found") },
  }),
  async (c) => {
    const { id } = await readTenant(c.env, c.req.param("id"));
    const body = await readBody(c, tenantLimitsPutSchema);
    return c.json(limitsResource(await replaceTenantLimits(c.env, id, body, Date.now())));
  },
);

function limitsResource(view: TenantLimitsView) {
  return {
    tenant_id: view.tenantId,
    ...pick(view.limits),
    weight: view.weight,
    overridden: view.overridden,
    defaults: { ...pick(view.defaults), weight: view.defaultWeight },
    dispatch:
      view.dispatch === null
        ? null
        : {
            waiting: view.dispatch.waiting,
            in_flight: view.dispatch.inFlight,
            triggers_in_window: view.dispatch.triggersInWindow,
          },
  };
}

function pick(limits: TenantLimits): Record<TenantLimitName, number | null> {
  return Object.fromEntries(TENANT_LIMIT_NAMES.map((name) => [name, limits[name]])) as TenantLimits;
}
