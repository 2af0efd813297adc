import { createRoute } from "@hono/zod-openapi";
import {
  findTenant,
  insertTenant,
  listTenants,
  promoteSigningSecret,
  setNextSigningSecret,
  tenantResource,
  updateTenant,
} from "../../../db/tenants";
import { newId, requireOwnId } from "../../../service/ids";
import { targetUrlProblem } from "../../../service/private-targets";
import { forgetTenantSecrets } from "../../../service/tenant-secrets";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
import { EdgecronError, validationError } from "../../http/problem";
import { randomHex } from "../../http/secrets";
import { tenantCreateSchema, tenantListSchema, tenantPatchSchema, tenantSchema } from "../openapi/components";
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
const tenantOk = json(tenantSchema, "The tenant");

/** HMAC signing secrets: 32 random bytes, hex. */
function newSigningSecret(): string {
  return randomHex(32);
}

export const tenants = apiRouter();

defineRoute(
  tenants,
  createRoute({
    method: "post",
    path: "/",
    operationId: "createTenant",
    summary: "Create a tenant (admin)",
    tags,
    middleware: [requireAdmin],
    request: { body: jsonBody(tenantCreateSchema) },
    responses: { 201: json(tenantSchema, "The new tenant"), ...problems(...ADMIN_ERRORS, ...BODY_ERRORS) },
  }),
  async (c) => {
    const body = await readBody(c, tenantCreateSchema);
    checkWebhookUrl(c.env, body.alert_webhook_url);
    const row = {
      id: newId("ten", Date.now()),
      name: body.name,
      signing_secret: newSigningSecret(),
      signing_secret_next: null,
      alert_webhook_url: body.alert_webhook_url ?? null,
      created_at_ms: Date.now(),
    };
    await insertTenant(c.env.DB, row);
    return c.json(tenantResource(row), 201);
  },
);

defineRoute(
  tenants,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listTenants",
    summary: "List tenants (admin)",
    tags,
    middleware: [requireAdmin],
    responses: { 200: json(tenantListSchema, "Every tenant"), ...problems(...ADMIN_ERRORS) },
  }),
  async (c) => {
    const rows = await listTenants(c.env.DB);
    return c.json({ data: rows.map(tenantResource) });
  },
);

/** A tenant key may read its own tenant; every other tenant id is 404 to it. */
defineRoute(
  tenants,
  createRoute({
    method: "get",
    path: "/{id}",
    operationId: "getTenant",
    summary: "Read a tenant (admin, or that tenant's key)",
    tags,
    request: { params },
    responses: { 200: tenantOk, ...problems(...ADMIN_ERRORS, "tenant_not_found") },
  }),
  async (c) => {
    const caller = c.get("caller");
    const id = c.req.param("id");
    if (caller.role === "tenant" && caller.tenantId !== id) throw tenantNotFound();
    return c.json(tenantResource(await loadTenant(c.env.DB, id)));
  },
);

defineRoute(
  tenants,
  createRoute({
    method: "patch",
    path: "/{id}",
    operationId: "updateTenant",
    summary: "Edit a tenant (admin)",
    tags,
    middleware: [requireAdmin],
    request: { params, body: jsonBody(tenantPatchSchema) },
    responses: { 200: tenantOk, ...problems(...ADMIN_ERRORS, ...BODY_ERRORS, "tenant_not_found") },
  }),
  async (c) => {
    const id = (await loadTenant(c.env.DB, c.req.param("id"))).id;
    const body = await readBody(c, tenantPatchSchema);
    checkWebhookUrl(c.env, body.alert_webhook_url);
    await updateTenant(c.env.DB, id, body);
    return c.json(tenantResource(await loadTenant(c.env.DB, id)));
  },
);

defineRoute(
  tenants,
  createRoute({
    method: "post",
    path: "/{id}/signing-secret/rotate",
    operationId: "rotateSigningSecret",
    summary: "Start a signing secret rotation: a new signing_secret_next signs beside the current",
    tags,
    middleware: [requireAdmin],
    request: { params },
    responses: { 200: tenantOk, ...problems(...ADMIN_ERRORS, "tenant_not_found") },
  }),
  async (c) => {
    const id = (await loadTenant(c.env.DB, c.req.param("id"))).id;
    await setNextSigningSecret(c.env.DB, id, newSigningSecret());
    // Other isolates pick the change up when their cache entry expires (30 s): see README.
    forgetTenantSecrets(id);
    return c.json(tenantResource(await loadTenant(c.env.DB, id)));
  },
);

defineRoute(
  tenants,
  createRoute({
    method: "post",
    path: "/{id}/signing-secret/promote",
    operationId: "promoteSigningSecret",
    summary: "Finish a signing secret rotation: next becomes current",
    tags,
    middleware: [requireAdmin],
    request: { params },
    responses: {
      200: tenantOk,
      ...problems(...ADMIN_ERRORS, "tenant_not_found", "no_next_signing_secret"),
    },
  }),
  async (c) => {
    const tenant = await loadTenant(c.env.DB, c.req.param("id"));
    if (tenant.signing_secret_next === null) {
      throw new EdgecronError("no_next_signing_secret", "Rotate the signing secret before promoting it");
    }
    await promoteSigningSecret(c.env.DB, tenant.id);
    forgetTenantSecrets(tenant.id);
    return c.json(tenantResource(await loadTenant(c.env.DB, tenant.id)));
  },
);

/** The alert webhook is called like a job target: the same SSRF policy, refused at the API. */
function checkWebhookUrl(env: Env, url: string | null | undefined): void {
  if (url === null || url === undefined) return;
  const problem = targetUrlProblem(env, url);
  if (problem !== null) throw validationError([{ path: "alert_webhook_url", message: problem }]);
}

function tenantNotFound(id?: string): EdgecronError {
  return new EdgecronError("tenant_not_found", id === undefined ? "No such tenant" : `No tenant ${id}`);
}

async function loadTenant(db: D1Database, rawId: string) {
  const id = requireOwnId(rawId, "ten", tenantNotFound);
  const tenant = await findTenant(db, id);
  if (tenant === null) throw tenantNotFound(id);
  return tenant;
}
