// GET /v2/keys: the tenant's signing keys, which the Receiver takes as currentSigningKey and
// nextSigningKey. Outside a rotation there is no next key; the current one is given for both,
// since the Receiver uses its keys only when both are set.
import { Hono } from "hono";
import { findTenant } from "../../db/tenants";
import type { AppEnv } from "../http/app-env";
import { EdgecronError } from "../http/problem";
import { notFound } from "./errors";

export const keys = new Hono<AppEnv>();

keys.get("/", async (c) => {
  const tenant = await findTenant(c.env.DB, c.get("tenantId"));
  if (tenant === null) throw notFound("tenant not found");
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
