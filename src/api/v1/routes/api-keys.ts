import { createRoute } from "@hono/zod-openapi";
import { sha256Hex } from "../../../core/encoding";
import { apiKeyResource, findApiKey, insertApiKey, listApiKeys, revokeApiKey } from "../../../db/api-keys";
import { findTenant } from "../../../db/tenants";
import { newId, requireOwnId } from "../../../service/ids";
import { forgetApiKey } from "../../http/api-key-cache";
import { requireAdmin } from "../../http/auth";
import { readBody } from "../../http/body";
import { EdgecronError } from "../../http/problem";
import { randomHex } from "../../http/secrets";
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

/** `ek_` + 32 random bytes as hex (256 bits). Only its SHA-256 is stored. */
function newApiKey(): string {
  return `ek_${randomHex(32)}`;
}

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
    const tenant = await findTenant(c.env.DB, body.tenant_id);
    if (tenant === null) throw new EdgecronError("tenant_not_found", `No tenant ${body.tenant_id}`);
    const key = newApiKey();
    const nowMs = Date.now();
    const row = {
      id: newId("key", nowMs),
      tenant_id: tenant.id,
      key_hash: await sha256Hex(key),
      key_prefix: key.slice(0, 11),
      name: body.name ?? null,
      created_at_ms: nowMs,
      revoked_at_ms: null,
    };
    await insertApiKey(c.env.DB, row);
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
    const rows = await listApiKeys(c.env.DB, query.tenant_id);
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
    const notFound = new EdgecronError("api_key_not_found", "No such API key");
    const id = requireOwnId(c.req.param("id"), "key", () => notFound);
    if ((await findApiKey(c.env.DB, id)) === null) throw notFound;
    await revokeApiKey(c.env.DB, id, Date.now());
    forgetApiKey(id);
    const row = await findApiKey(c.env.DB, id);
    if (row === null) throw notFound;
    return c.json({ id: row.id, revoked_at: new Date(row.revoked_at_ms ?? Date.now()).toISOString() });
  },
);
