import { createMiddleware } from "hono/factory";
import { sha256Hex } from "../../core/common/encoding";
import { apiKeyByHash } from "../../service/api-keys";
import { tenantExists } from "../../service/tenants/manage-tenants";
import { cachedCallerOf, rememberCaller } from "./api-key-cache";
import type { AppEnv, Caller } from "./app-env";
import { authThrottled, isAddressThrottled, recordAuthFailure } from "./auth-throttle";
import { clientAddressOf } from "./client-address";
import { inProcessCallerOf } from "./in-process-caller";
import { EdgecronError } from "./problem";
import { secretsEqual } from "./secrets";

const API_KEY = /^ek_[0-9a-f]{64}$/;

function unauthorized(detail = "Send a valid API key or admin token as `Authorization: Bearer <token>`") {
  return new EdgecronError("unauthorized", detail);
}

function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

/**
 * Resolves the caller from the bearer token. Fails closed: with no admin secret configured every
 * request is refused, tenant keys included (the deployment is not set up). Failures are counted
 * and throttled (./auth-throttle.ts); a missing token is not a guess and is not counted.
 */
async function resolveCaller(env: Env, token: string | null, address: string | null): Promise<Caller> {
  const adminToken = env.EDGECRON_ADMIN_TOKEN;
  if (typeof adminToken !== "string" || adminToken === "") {
    throw unauthorized("The API is not configured: set the EDGECRON_ADMIN_TOKEN secret");
  }
  if (token === null) throw unauthorized();
  const nowMs = Date.now();
  const isApiKey = API_KEY.test(token);
  if (!isApiKey && isAddressThrottled(address, nowMs)) throw authThrottled();
  const keyPrefix = isApiKey ? token.slice(0, 11) : null;
  // A revoked key throws here uncounted: it is a known key, not a guess, and its client must keep
  // hearing that it was revoked rather than to retry later.
  const tenantCaller = isApiKey ? await callerOfApiKey(env, token, nowMs) : null;
  if (tenantCaller !== null) return tenantCaller;
  if (await secretsEqual(token, adminToken)) return { role: "admin", tenantId: null, keyId: null };
  if (await recordAuthFailure(env.AUTH_FAILURES, { address, keyPrefix }, nowMs)) throw authThrottled();
  throw unauthorized();
}

/**
 * Looks the key up by its SHA-256, then compares the hashes in constant time. Null when unknown.
 * A key resolved within the last few seconds is answered from ./api-key-cache.ts.
 */
async function callerOfApiKey(env: Env, token: string, nowMs: number): Promise<Caller | null> {
  const cached = cachedCallerOf(token, nowMs);
  if (cached !== null) return cached;
  const keyHash = await sha256Hex(token);
  const key = await apiKeyByHash(env, keyHash);
  if (key === null || !(await secretsEqual(keyHash, key.key_hash))) return null;
  if (key.revoked_at_ms !== null) throw unauthorized("This API key has been revoked");
  const caller: Caller = { role: "tenant", tenantId: key.tenant_id, keyId: key.id };
  rememberCaller(token, caller, nowMs);
  return caller;
}

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const caller =
    inProcessCallerOf(c.req.raw) ??
    (await resolveCaller(
      c.env,
      bearerToken(c.req.header("authorization")),
      clientAddressOf(c.req.raw, c.env),
    ));
  c.set("caller", caller);
  await next();
});

export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("caller").role !== "admin") {
    throw new EdgecronError("forbidden", "This route needs the admin token");
  }
  await next();
});

/**
 * Sets `tenantId` for tenant-scoped routes: the key's own tenant, or for the admin the tenant
 * named in `Edgecron-Tenant` (400 when missing, 404 when it does not exist).
 */
export const tenantScope = createMiddleware<AppEnv>(async (c, next) => {
  const caller = c.get("caller");
  if (caller.role === "tenant" && caller.tenantId !== null) {
    c.set("tenantId", caller.tenantId);
    return next();
  }
  const named = c.req.header("edgecron-tenant")?.trim();
  if (!named) {
    throw new EdgecronError(
      "tenant_required",
      "The admin token must name a tenant with `Edgecron-Tenant: <id>`",
    );
  }
  if (!(await tenantExists(c.env, named))) {
    throw new EdgecronError("tenant_not_found", `No tenant ${named}`);
  }
  c.set("tenantId", named);
  await next();
});
