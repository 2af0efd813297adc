// Suspend and unsuspend a tenant (admin): the way to stop a runaway tenant at once. D1 records
// it (what would start work is refused with 409 `tenant_suspended`: src/service/suspension.ts) and every shard is told
// before the answer, so a 2xx means no call of the tenant starts any more (the shards' claims
// refuse them). Revoking a tenant's API keys does not do this: the jobs it made keep running.
import { createRoute } from "@hono/zod-openapi";
import { findTenant, setTenantSuspendedAt, tenantResource } from "../../../db/tenants";
import { requireOwnId } from "../../../service/ids";
import { setTenantSuspendedOnShards } from "../../../shard/client";
import { requireAdmin } from "../../http/auth";
import { EdgecronError } from "../../http/problem";
import { tenantSchema } from "../openapi/components";
import { ADMIN_ERRORS, apiRouter, defineRoute, idParams, json, problems } from "../openapi/define";

export const tenantSuspension = apiRouter();

/** Pauses before each round of shard calls: an overloaded shard refuses one now and then. */
const SHARD_RETRY_DELAYS_MS = [0, 50, 200];

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
      if ((await findTenant(c.env.DB, id)) === null) throw tenantNotFound(id);
      await setTenantSuspendedAt(c.env.DB, id, suspended ? Date.now() : null);
      await tellEveryShard(c.env, id, suspended);
      return c.json(tenantResource((await findTenant(c.env.DB, id)) ?? throwNotFound(id)));
    },
  );
}

defineSuspension("/{id}/suspend", true);
defineSuspension("/{id}/unsuspend", false);

/** Every shard, retried at once; any still unreachable: 503 (repeating the request finishes it). */
async function tellEveryShard(env: Env, tenantId: string, suspended: boolean): Promise<void> {
  let shards: number[] | undefined;
  for (const delayMs of SHARD_RETRY_DELAYS_MS) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    shards = await setTenantSuspendedOnShards(env, tenantId, suspended, shards);
    if (shards.length === 0) return;
  }
  throw new EdgecronError(
    "shard_unavailable",
    `${shards?.length} shard(s) could not be told; the tenant is ${suspended ? "suspended" : "unsuspended"} in D1: repeat the request`,
  );
}

function tenantNotFound(id?: string): EdgecronError {
  return new EdgecronError("tenant_not_found", id === undefined ? "No such tenant" : `No tenant ${id}`);
}

function throwNotFound(id: string): never {
  throw tenantNotFound(id);
}
