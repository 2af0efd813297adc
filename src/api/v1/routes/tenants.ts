import { createRoute } from "@hono/zod-openapi";
import {
  createTenant,
  editTenant,
  listAllTenants,
  promoteSigningSecret,
  readTenant,
  rotateSigningSecret,
} from "../../../service/tenants/manage-tenants";
import { tenantNotFound } from "../../../service/tenants/suspend-tenant";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
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
import { tenantResource } from "../views/tenant-view";

const tags = ["tenants"];
const params = idParams("ten_01JDXS3M0000000000000000AB");
const tenantOk = json(tenantSchema, "The tenant");

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
    const row = await createTenant(
      c.env,
      { name: body.name, alertWebhookUrl: body.alert_webhook_url ?? null },
      Date.now(),
    );
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
    const rows = await listAllTenants(c.env);
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
    return c.json(tenantResource(await readTenant(c.env, id)));
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
    // An unknown tenant is 404 before its body is read.
    const { id } = await readTenant(c.env, c.req.param("id"));
    const body = await readBody(c, tenantPatchSchema);
    const edit = {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.alert_webhook_url === undefined ? {} : { alertWebhookUrl: body.alert_webhook_url }),
    };
    return c.json(tenantResource(await editTenant(c.env, id, edit)));
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
    return c.json(tenantResource(await rotateSigningSecret(c.env, c.req.param("id"))));
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
    return c.json(tenantResource(await promoteSigningSecret(c.env, c.req.param("id"))));
  },
);
