import { Hono } from "hono";
import { z } from "zod";
import { apiKeyResource, findApiKey, insertApiKey, listApiKeys, revokeApiKey } from "../../db/api-keys";
import { findTenant } from "../../db/tenants";
import { readBody } from "../body";
import { randomHex, sha256Hex } from "../crypto";
import { newId, requireOwnId } from "../ids";
import { requireAdmin } from "../middleware/auth";
import { EdgecronError } from "../problem";
import { readQuery } from "../query";
import type { AppEnv } from "../types";

export const apiKeyCreateSchema = z.strictObject({
  tenant_id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(200).nullable().optional(),
});

/** `ek_` + 32 random bytes as hex (256 bits). Only its SHA-256 is stored. */
function newApiKey(): string {
  return `ek_${randomHex(32)}`;
}

export const apiKeys = new Hono<AppEnv>();

apiKeys.use("*", requireAdmin);

apiKeys.post("/", async (c) => {
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
});

/** Not in docs/API.md: lets the console show a tenant's keys (never the key itself). */
apiKeys.get("/", async (c) => {
  const query = readQuery(c, z.object({ tenant_id: z.string().min(1).max(100) }));
  const rows = await listApiKeys(c.env.DB, query.tenant_id);
  return c.json({ data: rows.map((row) => apiKeyResource(row)) });
});

apiKeys.delete("/:id", async (c) => {
  const notFound = new EdgecronError("api_key_not_found", "No such API key");
  const id = requireOwnId(c.req.param("id"), "key", notFound);
  if ((await findApiKey(c.env.DB, id)) === null) throw notFound;
  await revokeApiKey(c.env.DB, id, Date.now());
  const row = await findApiKey(c.env.DB, id);
  if (row === null) throw notFound;
  return c.json({ id: row.id, revoked_at: new Date(row.revoked_at_ms ?? Date.now()).toISOString() });
});
