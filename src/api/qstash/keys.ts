// GET /v2/keys: the tenant's signing keys, which the Receiver takes as currentSigningKey and
// nextSigningKey. Outside a rotation there is no next key; the current one is given for both,
// since the Receiver uses its keys only when both are set.
import { Hono } from "hono";
import { readTenant } from "../../service/tenants/manage-tenants";
import type { AppEnv } from "../http/app-env";
import { EdgecronError } from "../http/problem";

export const keys = new Hono<AppEnv>();

keys.get("/", async (c) => {
  // The key that authenticated the call names its tenant: it exists (else 404).
  const tenant = await readTenant(c.env, c.get("tenantId"));
  return c.json({
    current: tenant.signing_secret,
    next: tenant.signing_secret_next ?? tenant.signing_secret,
  });
});

keys.post("/rotate", () => {
  throw new EdgecronError(
    "forbidden",
    "Rotate signing keys with the admin token: POST /v1/tenants/{id}/signing-secret/rotate, then /promote",
  );
});
