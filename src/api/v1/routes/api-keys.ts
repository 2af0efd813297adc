import { createRoute } from "@hono/zod-openapi";
import { createApiKey, listTenantApiKeys, revokeApiKey } from "../../../service/api-keys";
import { forgetApiKey } from "../../http/api-key-cache";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
import {
  apiKeyCreateSchema,
  apiKeyListSchema,
  apiKeyRevokedSchema,
  apiKeySchema,
  listApiKeysQuerySchema,
} from "../openapi/components";
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
import { apiKeyResource } from "../views/api-key-view";

export const apiKeys = apiRouter();

apiKeys.use("*", requireAdmin);

defineRoute(
  apiKeys,
  createRoute({
    method: "post",
    path: "/",
    operationId: "createApiKey",
    summary: "Create an API key for a tenant (admin); the key is shown once",
    tags: ["api-keys"],
    request: { body: jsonBody(apiKeyCreateSchema) },
    responses: {
      201: json(apiKeySchema, "The new key, with its secret"),
      ...problems(...ADMIN_ERRORS, ...BODY_ERRORS, "tenant_not_found"),
    },
  }),
  async (c) => {
    const body = await readBody(c, apiKeyCreateSchema);
    const { row, key } = await createApiKey(
      c.env,
      { tenantId: body.tenant_id, name: body.name ?? null },
      Date.now(),
    );
    return c.json(apiKeyResource(row, key), 201);
  },
);

/** Not in docs/API.md: lets the console show a tenant's keys (never the key itself). */
defineRoute(
  apiKeys,
  createRoute({
    method: "get",
    path: "/",
    operationId: "listApiKeys",
    summary: "List a tenant's API keys (admin); never the secrets",
    tags: ["api-keys"],
    request: { query: listApiKeysQuerySchema },
    responses: {
      200: json(apiKeyListSchema, "The tenant's keys"),
      ...problems(...ADMIN_ERRORS, "validation_failed"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const rows = await listTenantApiKeys(c.env, query.tenant_id);
    return c.json({ data: rows.map((row) => apiKeyResource(row)) });
  },
);

defineRoute(
  apiKeys,
  createRoute({
    method: "delete",
    path: "/{id}",
    operationId: "revokeApiKey",
    summary: "Revoke an API key (admin)",
    tags: ["api-keys"],
    request: { params: idParams("key_01JDXS3M0000000000000000AB") },
    responses: {
      200: json(apiKeyRevokedSchema, "The key, revoked"),
      ...problems(...ADMIN_ERRORS, "api_key_not_found"),
    },
  }),
  async (c) => {
    const row = await revokeApiKey(c.env, c.req.param("id"), Date.now());
    forgetApiKey(row.id);
    return c.json({ id: row.id, revoked_at: new Date(row.revoked_at_ms ?? Date.now()).toISOString() });
  },
);
