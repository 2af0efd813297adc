import { Hono } from "hono";
import { z } from "zod";
import {
  findTenant,
  insertTenant,
  listTenants,
  promoteSigningSecret,
  setNextSigningSecret,
  tenantResource,
  updateTenant,
} from "../../db/tenants";
import { targetAddressProblem } from "../../core/ssrf";
import { forgetTenantSecrets } from "../../queue/tenant-secrets";
import { readBody } from "../body";
import { randomHex } from "../crypto";
import { newId, requireOwnId } from "../ids";
import { requireAdmin } from "../middleware/auth";
import { allowsPrivateTargets } from "../job-service";
import { EdgecronError, validationError } from "../problem";
import type { AppEnv } from "../types";

const webhookUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    message: "must be an absolute http(s) URL",
  });

export const tenantCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  alert_webhook_url: webhookUrl.nullable().optional(),
});

export const tenantPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  alert_webhook_url: webhookUrl.nullable().optional(),
});

/** HMAC signing secrets: 32 random bytes, hex. */
function newSigningSecret(): string {
  return randomHex(32);
}

export const tenants = new Hono<AppEnv>();

tenants.post("/", requireAdmin, async (c) => {
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
});

tenants.get("/", requireAdmin, async (c) => {
  const rows = await listTenants(c.env.DB);
  return c.json({ data: rows.map(tenantResource) });
});

/** A tenant key may read its own tenant; every other tenant id is 404 to it. */
tenants.get("/:id", async (c) => {
  const caller = c.get("caller");
  const id = c.req.param("id");
  if (caller.role === "tenant" && caller.tenantId !== id) throw tenantNotFound();
  return c.json(tenantResource(await loadTenant(c.env.DB, id)));
});

tenants.patch("/:id", requireAdmin, async (c) => {
  const id = (await loadTenant(c.env.DB, c.req.param("id"))).id;
  const body = await readBody(c, tenantPatchSchema);
  checkWebhookUrl(c.env, body.alert_webhook_url);
  await updateTenant(c.env.DB, id, body);
  return c.json(tenantResource(await loadTenant(c.env.DB, id)));
});

tenants.post("/:id/signing-secret/rotate", requireAdmin, async (c) => {
  const id = (await loadTenant(c.env.DB, c.req.param("id"))).id;
  await setNextSigningSecret(c.env.DB, id, newSigningSecret());
  // Other isolates pick the change up when their cache entry expires (30 s): see README.
  forgetTenantSecrets(id);
  return c.json(tenantResource(await loadTenant(c.env.DB, id)));
});

tenants.post("/:id/signing-secret/promote", requireAdmin, async (c) => {
  const tenant = await loadTenant(c.env.DB, c.req.param("id"));
  if (tenant.signing_secret_next === null) {
    throw new EdgecronError("no_next_signing_secret", "Rotate the signing secret before promoting it");
  }
  await promoteSigningSecret(c.env.DB, tenant.id);
  forgetTenantSecrets(tenant.id);
  return c.json(tenantResource(await loadTenant(c.env.DB, tenant.id)));
});

/** The alert webhook is called like a job target: the same SSRF policy, refused at the API. */
function checkWebhookUrl(env: Env, url: string | null | undefined): void {
  if (url === null || url === undefined) return;
  const problem = targetAddressProblem(url, { allowPrivate: allowsPrivateTargets(env) });
  if (problem !== null) throw validationError([{ path: "alert_webhook_url", message: problem }]);
}

function tenantNotFound(id?: string): EdgecronError {
  return new EdgecronError("tenant_not_found", id === undefined ? "No such tenant" : `No tenant ${id}`);
}

async function loadTenant(db: D1Database, rawId: string) {
  const id = requireOwnId(rawId, "ten", tenantNotFound());
  const tenant = await findTenant(db, id);
  if (tenant === null) throw tenantNotFound(id);
  return tenant;
}
