// Sign-in, sign-out and the admin's tenant switch.
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import {
  closeConsoleSession,
  openConsoleSession,
  type SignIn,
  setActingTenant,
  tenantSignIn,
} from "../../service/console-sessions";
import { randomId } from "../../service/random-secrets";
import { callApi } from "../api";
import { BASE, type ConsoleContext, type ConsoleEnv } from "../env";
import { LoginPage } from "../pages/login";
import {
  adminSecret,
  clearSessionCookie,
  cookieOptions,
  formField,
  requireSession,
  safeNext,
  saveSessionCookie,
} from "../security";
import { csrfToken, verifyCsrf } from "../session";
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
  const signIn = key ? await signInOf(c, key) : null;
  if (!signIn) {
    const error = key ? "That key was not accepted. Check it and try again." : "Enter an API key.";
    return c.html(<LoginPage csrf={csrf} next={next} error={error} />, 401);
  }
  saveSessionCookie(c, await openConsoleSession(c.env, signIn, Date.now()));
  deleteCookie(c, LOGIN_COOKIE, { ...cookieOptions(c, 0), path: `${BASE}/login` });
  return c.redirect(next, 303);
});

/** Asks the API who the credential is (it alone decides what is accepted), then what to store. */
async function signInOf(c: ConsoleContext, credential: string): Promise<SignIn | null> {
  const me = await callApi<Me>(c, "GET", "/v1/me", { token: credential, tenant: null });
  if (!me.ok) return null;
  if (me.data.role === "tenant") return tenantSignIn(c.env, credential);
  if (me.data.role !== "admin") return null;
  const tenants = await callApi<{ data: Tenant[] }>(c, "GET", "/v1/tenants", {
    token: credential,
    tenant: null,
  });
  const actingTenant = tenants.ok ? (tenants.data.data[0]?.id ?? null) : null;
  return { role: "admin", adminToken: credential, actingTenant };
}

// Signing out deletes the session itself: the old cookie opens nothing afterwards.
authRoutes.post("/logout", requireSession, async (c) => {
  await closeConsoleSession(c.env, c.get("session"));
  clearSessionCookie(c);
  return c.redirect(`${BASE}/login`, 303);
});

authRoutes.post("/tenant", requireSession, async (c) => {
  const session = c.get("session");
  if (session.role !== "admin") return c.text("Only the admin token can switch tenants", 403);
  const tenant = ((await formField(c, "tenant")) ?? "").trim();
  await setActingTenant(c.env, session, tenant || null);
  return c.redirect(safeNext(await formField(c, "next")), 303);
});
