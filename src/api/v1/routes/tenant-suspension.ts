// Suspend and unsuspend a tenant (admin), through src/service/tenants/suspend-tenant.ts: a 2xx
// means no call of the tenant starts any more. Revoking a tenant's API keys does not do this: the
// jobs it made keep running.
import { createRoute } from "@hono/zod-openapi";

import { requireOwnId } from "../../../service/ids";
import { setTenantSuspended, tenantNotFound } from "../../../service/tenants/suspend-tenant";
import { requireAdmin } from "../../http/auth";
import { tenantSchema } from "../openapi/components";
import { ADMIN_ERRORS, apiRouter, defineRoute, idParams, json, problems } from "../openapi/define";
import { tenantResource } from "../views/tenant-view";

export const tenantSuspension = apiRouter();

function defineSuspension(path: "/{id}/suspend" | "/{id}/unsuspend", suspended: boolean): void {
  defineRoute(
    tenantSuspension,
    createRoute({
      method: "post",
      path,
      operationId: suspended ? "suspendTenant" : "unsuspendTenant",
      summary: suspended
        ? "Suspend a tenant (admin): no call of it starts, and what would start work is refused (409) until unsuspended"
        : "Unsuspend a tenant (admin): its jobs run again, missed instants by each job's misfire policy",
      tags: ["tenants"],
      middleware: [requireAdmin],
      request: { params: idParams("ten_01JDXS3M0000000000000000AB") },
      responses: {
        200: json(tenantSchema, "The tenant, as every shard now holds it"),
        ...problems(...ADMIN_ERRORS, "tenant_not_found", "shard_unavailable"),
      },
    }),
    async (c) => {
      const id = requireOwnId(c.req.param("id"), "ten", tenantNotFound);
      return c.json(tenantResource(await setTenantSuspended(c.env, id, suspended, Date.now())));
    },
  );
}

defineSuspension("/{id}/suspend", true);
defineSuspension("/{id}/unsuspend", false);
