// Sign-in, sign-out and the admin's tenant switch.
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { callApi } from "../api";
import { BASE, type ConsoleEnv } from "../env";
import { LoginPage } from "../pages/login";
import {
  adminSecret,
  cookieOptions,
  formField,
  requireSession,
  safeNext,
  saveSession,
  sessionCookieName,
} from "../security";
import { csrfToken, randomId, SESSION_TTL_SECONDS, verifyCsrf } from "../session";
import type { Me, Tenant } from "../types";

export const authRoutes = new Hono<ConsoleEnv>();

// Sign-in has no session yet: its CSRF token is bound to a nonce in a short-lived cookie instead.
const LOGIN_COOKIE = "edgecron_console_login";
const LOGIN_TTL_SECONDS = 30 * 60;

authRoutes.get("/login", async (c) => {
  const secret = adminSecret(c);
  if (!secret) return c.text("Console unavailable: EDGECRON_ADMIN_TOKEN is not configured", 503);
  const nonce = getCookie(c, LOGIN_COOKIE) ?? randomId();
  setCookie(c, LOGIN_COOKIE, nonce, { ...cookieOptions(c, LOGIN_TTL_SECONDS), path: `${BASE}/login` });
  const csrf = await csrfToken(secret, `login:${nonce}`);
  return c.html(<LoginPage csrf={csrf} next={safeNext(c.req.query("next"))} />);
});

authRoutes.post("/login", async (c) => {
  const secret = adminSecret(c);
  if (!secret) return c.text("Console unavailable: EDGECRON_ADMIN_TOKEN is not configured", 503);
  const nonce = getCookie(c, LOGIN_COOKIE);
  const submitted = await formField(c, "_csrf");
  if (!nonce || !(await verifyCsrf(secret, `login:${nonce}`, submitted))) {
    return c.text("The sign-in form expired or was not ours: reload the sign-in page", 403);
  }
  const next = safeNext(await formField(c, "next"));
  const key = ((await formField(c, "api_key")) ?? "").trim();
  const csrf = await csrfToken(secret, `login:${nonce}`);
  const me = key ? await callApi<Me>(c, "GET", "/v1/me", { token: key, tenant: null }) : null;
  if (!me?.ok || (me.data.role !== "admin" && me.data.role !== "tenant")) {
    const error = key ? "That key was not accepted. Check it and try again." : "Enter an API key.";
    return c.html(<LoginPage csrf={csrf} next={next} error={error} />, 401);
  }
  let actingTenant: string | null = null;
  if (me.data.role === "admin") {
    const tenants = await callApi<{ data: Tenant[] }>(c, "GET", "/v1/tenants", { token: key, tenant: null });
    actingTenant = tenants.ok ? (tenants.data.data[0]?.id ?? null) : null;
  }
  await saveSession(c, secret, {
    token: key,
    sid: randomId(),
    role: me.data.role,
    tenantId: me.data.tenant_id,
    actingTenant,
    expiresAtMs: Date.now() + SESSION_TTL_SECONDS * 1000,
  });
  deleteCookie(c, LOGIN_COOKIE, { ...cookieOptions(c, 0), path: `${BASE}/login` });
  return c.redirect(next, 303);
});

authRoutes.post("/logout", requireSession, (c) => {
  deleteCookie(c, sessionCookieName(c), cookieOptions(c, 0));
  return c.redirect(`${BASE}/login`, 303);
});

authRoutes.post("/tenant", requireSession, async (c) => {
  const session = c.get("session");
  const secret = adminSecret(c);
  if (session.role !== "admin" || !secret) return c.text("Only the admin token can switch tenants", 403);
  const tenant = ((await formField(c, "tenant")) ?? "").trim();
  await saveSession(c, secret, { ...session, actingTenant: tenant || null });
  return c.redirect(safeNext(await formField(c, "next")), 303);
});
