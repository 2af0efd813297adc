// Request guards for the console: security headers, same-origin checks on every state-changing
// request, the session cookie and the CSRF token.

import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { configuredAdminToken, loadConsoleSession, SESSION_TTL_SECONDS } from "../service/console-sessions";
import { BASE, type ConsoleContext, type ConsoleEnv } from "./env";
import { csrfToken, verifyCsrf } from "./session";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `Secure` everywhere except plain-http development on loopback (browsers drop Secure cookies there). */
export function isSecureContext(c: ConsoleContext): boolean {
  return !LOOPBACK_HOSTS.has(new URL(c.req.url).hostname);
}

/** `__Host-` pins the cookie to this host and path `/`; browsers only accept it with Secure. */
export function sessionCookieName(c: ConsoleContext): string {
  return isSecureContext(c) ? "__Host-edgecron_console" : "edgecron_console";
}

export function cookieOptions(c: ConsoleContext, maxAgeSeconds: number) {
  return {
    httpOnly: true,
    secure: isSecureContext(c),
    sameSite: "Strict" as const,
    path: "/",
    maxAge: maxAgeSeconds,
  };
}

export function adminSecret(c: ConsoleContext): string | null {
  return configuredAdminToken(c.env);
}

export const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  await next();
  c.header(
    "Content-Security-Policy",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
      "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
};

/**
 * Rejects cross-site state changes before anything else runs: a browser names the requesting
 * site in Sec-Fetch-Site and Origin; either one pointing elsewhere is a forged request.
 */
export const sameOriginOnly: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const site = c.req.header("sec-fetch-site");
  const origin = c.req.header("origin");
  const ownOrigin = new URL(c.req.url).origin;
  if ((site && site !== "same-origin" && site !== "none") || (origin && origin !== ownOrigin)) {
    return c.text("Cross-site request refused", 403);
  }
  return next();
};

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * Parses a posted form once, up front: a body the runtime cannot parse (a broken multipart
 * boundary) is the client's fault and gets a 400, where it used to escape as a 500 from whichever
 * handler read it first. Hono caches the parsed form, so handlers reuse this parse.
 */
export const readableForm: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const type = c.req.header("content-type") ?? "";
  if (c.req.method === "GET" || c.req.method === "HEAD" || !FORM_TYPES.some((form) => type.includes(form))) {
    return next();
  }
  try {
    await c.req.parseBody({ all: true });
  } catch {
    return c.text("The form could not be read: send it again from the page", 400);
  }
  return next();
};

/** Gives the browser the session id: the cookie holds that random id and nothing else. */
export function saveSessionCookie(c: ConsoleContext, sessionId: string): void {
  setCookie(c, sessionCookieName(c), sessionId, cookieOptions(c, SESSION_TTL_SECONDS));
}

export function clearSessionCookie(c: ConsoleContext): void {
  deleteCookie(c, sessionCookieName(c), cookieOptions(c, 0));
}

/**
 * Loads the session (or sends the visitor to sign-in) and, for POSTs, checks the CSRF token. A
 * cookie whose session has ended (signed out, key revoked, admin token changed, expired) is
 * cleared: a page load goes to sign-in, any other request is refused with 401 and changes nothing.
 */
export const requireSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const secret = adminSecret(c);
  if (!secret) return c.text("Console unavailable: EDGECRON_ADMIN_TOKEN is not configured", 503);
  const sessionId = getCookie(c, sessionCookieName(c));
  const session = sessionId ? await loadConsoleSession(c.env, sessionId, Date.now()) : null;
  if (!session) {
    if (sessionId !== undefined) clearSessionCookie(c);
    if (c.req.method !== "GET") return c.text("Session ended: sign in again", 401);
    if (sessionId !== undefined) return c.redirect(`${BASE}/login`, 303);
    const url = new URL(c.req.url);
    return c.redirect(`${BASE}/login?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
  }
  const subject = `session:${session.id}`;
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const submitted = c.req.header("x-csrf-token") ?? (await formField(c, "_csrf"));
    if (!(await verifyCsrf(secret, subject, submitted))) return c.text("Invalid or missing CSRF token", 403);
  }
  c.set("session", session);
  c.set("csrf", await csrfToken(secret, subject));
  await next();
};

/** Reads one field of an urlencoded or multipart body (Hono caches the parsed body for handlers). */
export async function formField(c: ConsoleContext, name: string): Promise<string | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!type.includes("application/x-www-form-urlencoded") && !type.includes("multipart/form-data")) {
    return undefined;
  }
  const body = await c.req.parseBody({ all: true });
  const value = body[name];
  return typeof value === "string" ? value : undefined;
}

/** A same-site path inside the console, or the overview: never an open redirect. */
export function safeNext(next: string | undefined): string {
  if (next?.startsWith(BASE) && !next.startsWith("//") && !next.includes("\\")) return next;
  return BASE;
}
