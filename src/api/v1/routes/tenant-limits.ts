// A tenant's limits (admission control): the admin sets them, the tenant reads its own.
import { createRoute } from "@hono/zod-openapi";
import {
  DEFAULT_TENANT_WEIGHT,
  TENANT_LIMIT_NAMES,
  type TenantLimitName,
  type TenantLimits,
} from "../../../core/tenant-limits";
import { loadTenantLimits, putTenantLimits } from "../../../db/tenant-limits";
import { findTenant } from "../../../db/tenants";
import { gateState, tenantGate } from "../../../gate/client";
import { tenantLimitDefaults } from "../../../service/admission";
import { requireOwnId } from "../../../service/ids";
import { tellShardsTenantWeight } from "../../../service/tenant-fanout";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
import { EdgecronError } from "../../http/problem";
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
    const id = await loadTenantId(c.env.DB, c.req.param("id"));
    if (caller.role === "tenant" && caller.tenantId !== id) throw tenantNotFound();
    return c.json(await limitsResource(c.env, id));
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
    const id = await loadTenantId(c.env.DB, c.req.param("id"));
    const body = await readBody(c, tenantLimitsPutSchema);
    await putTenantLimits(c.env.DB, id, body, Date.now());
    // The shards split their windows by the new weight at once; one the push misses reads it from
    // D1 with the limits within seconds.
    await tellShardsTenantWeight(c.env, id, body.weight ?? DEFAULT_TENANT_WEIGHT);
    return c.json(await limitsResource(c.env, id));
  },
);

async function limitsResource(env: Env, tenantId: string) {
  const defaults = tenantLimitDefaults(env);
  const { limits, overridden, weight, weightSet } = await loadTenantLimits(env.DB, tenantId, defaults);
  const gated = limits.triggers_per_second !== null || limits.concurrent_calls !== null;
  const state = gated ? await gateState(env, tenantGate(tenantId)) : null;
  return {
    tenant_id: tenantId,
    ...pick(limits),
    weight,
    overridden: weightSet ? [...overridden, "weight"] : overridden,
    defaults: { ...pick(defaults), weight: DEFAULT_TENANT_WEIGHT },
    dispatch:
      state === null
        ? null
        : { waiting: state.waiting, in_flight: state.inFlight, triggers_in_window: state.rateCount },
  };
}

function pick(limits: TenantLimits): Record<TenantLimitName, number | null> {
  return Object.fromEntries(TENANT_LIMIT_NAMES.map((name) => [name, limits[name]])) as TenantLimits;
}

function tenantNotFound(id?: string): EdgecronError {
  return new EdgecronError("tenant_not_found", id === undefined ? "No such tenant" : `No tenant ${id}`);
}

async function loadTenantId(db: D1Database, rawId: string): Promise<string> {
  const id = requireOwnId(rawId, "ten", tenantNotFound);
  if ((await findTenant(db, id)) === null) throw tenantNotFound(id);
  return id;
}
