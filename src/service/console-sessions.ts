// Console sessions live on the server (D1, src/db/sessions.ts); the cookie carries only a random
// session id (src/console/security.ts sets it, src/console/session.ts makes its CSRF tokens). The
// row holds who signed in (the admin, or a tenant key by id) and a hash of the credential used, so
// a session ends when it is signed out (row deleted), when its key is revoked, when
// EDGECRON_ADMIN_TOKEN changes (admin sessions compare their hash with the current token's on
// every request) and after SESSION_TTL_SECONDS; the maintenance pass deletes rows that have ended
// (sweepConsoleSessions).
import { base64UrlOf, sha256Hex } from "../core/common/encoding";
import { findApiKeyByHash } from "../db/api-keys";
import {
  type ConsoleSessionWithKey,
  deleteConsoleSession,
  deleteEndedConsoleSessions,
  findConsoleSession,
  insertConsoleSession,
  setConsoleSessionActingTenant,
} from "../db/sessions";
import { randomId } from "./random-secrets";

const encoder = new TextEncoder();
const SWEEP_BATCH = 1_000;
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** 32 random bytes, base64url: the only thing the session cookie holds. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface Session {
  /** The cookie's random id (the CSRF token is an HMAC of it); D1 keeps only its hash. */
  id: string;
  idHash: string;
  role: "admin" | "tenant";
  /** The key's own tenant (null for the admin token). */
  tenantId: string | null;
  /** The key the session was opened with (null for the admin token). */
  apiKeyId: string | null;
  /** The tenant an admin is looking at (sent as Edgecron-Tenant); null = none chosen. */
  actingTenant: string | null;
  expiresAtMs: number;
}

/** Who is signing in, as the API resolved it from the credential typed into the form. */
export type SignIn =
  | { role: "admin"; adminToken: string; actingTenant: string | null }
  | { role: "tenant"; tenantId: string; apiKeyId: string; keyHash: string };

/** The sign-in of a tenant key the API has just accepted: which key it is, by its hash. */
export async function tenantSignIn(env: Env, apiKey: string): Promise<SignIn | null> {
  const keyHash = await sha256Hex(apiKey);
  const key = await findApiKeyByHash(env.DB, keyHash);
  if (key === null || key.revoked_at_ms !== null) return null;
  return { role: "tenant", tenantId: key.tenant_id, apiKeyId: key.id, keyHash };
}

/** Stores a new session and returns the id for the cookie. */
export async function openConsoleSession(env: Env, signIn: SignIn, nowMs: number): Promise<string> {
  const id = randomId(32);
  const principal =
    signIn.role === "tenant"
      ? {
          tenant_id: signIn.tenantId,
          api_key_id: signIn.apiKeyId,
          credential_hash: signIn.keyHash,
          acting_tenant: null,
        }
      : {
          tenant_id: null,
          api_key_id: null,
          credential_hash: await adminCredentialHash(signIn.adminToken),
          acting_tenant: signIn.actingTenant,
        };
  await insertConsoleSession(env.DB, {
    id_hash: await sha256Hex(id),
    role: signIn.role,
    ...principal,
    created_at_ms: nowMs,
    expires_at_ms: nowMs + SESSION_TTL_SECONDS * 1000,
  });
  return id;
}

/** The session behind a cookie, or null when there is none or it has ended (its row is then deleted). */
export async function loadConsoleSession(env: Env, cookieId: string, nowMs: number): Promise<Session | null> {
  if (!SESSION_ID.test(cookieId)) return null;
  const idHash = await sha256Hex(cookieId);
  const row = await findConsoleSession(env.DB, idHash);
  if (row === null) return null;
  if (!(await stillStands(env, row, nowMs))) {
    await deleteConsoleSession(env.DB, idHash);
    return null;
  }
  return {
    id: cookieId,
    idHash,
    role: row.role,
    tenantId: row.tenant_id,
    apiKeyId: row.api_key_id,
    actingTenant: row.acting_tenant,
    expiresAtMs: row.expires_at_ms,
  };
}

async function stillStands(env: Env, row: ConsoleSessionWithKey, nowMs: number): Promise<boolean> {
  if (row.expires_at_ms <= nowMs) return false;
  if (row.role === "tenant") {
    return row.key_revoked_at_ms === null && row.key_hash !== null && row.key_hash === row.credential_hash;
  }
  const adminToken = configuredAdminToken(env);
  return adminToken !== null && (await adminCredentialHash(adminToken)) === row.credential_hash;
}

/** Signing out deletes the session itself: the old cookie opens nothing afterwards. */
export async function closeConsoleSession(env: Env, session: Session): Promise<void> {
  await deleteConsoleSession(env.DB, session.idHash);
}

/** The admin's tenant switch (null: none chosen). */
export async function setActingTenant(env: Env, session: Session, tenantId: string | null): Promise<void> {
  await setConsoleSessionActingTenant(env.DB, session.idHash, tenantId);
}

export function configuredAdminToken(env: Env): string | null {
  const secret = env.EDGECRON_ADMIN_TOKEN;
  return typeof secret === "string" && secret.length > 0 ? secret : null;
}

const adminHashCache = new Map<string, Promise<string>>();

/**
 * What an admin session stores of the token it was opened with. PBKDF2 (the most iterations
 * Workers allow), not a bare SHA-256: the admin token may be a chosen word, and a copy of D1 must
 * not make guessing it cheap. Computed once per isolate for the current token.
 */
export function adminCredentialHash(adminToken: string): Promise<string> {
  let hash = adminHashCache.get(adminToken);
  if (!hash) {
    hash = (async () => {
      const base = await crypto.subtle.importKey("raw", encoder.encode(adminToken), "PBKDF2", false, [
        "deriveBits",
      ]);
      const params = {
        name: "PBKDF2",
        hash: "SHA-256",
        salt: encoder.encode("edgecron-console-admin-v1"),
        iterations: 100_000,
      };
      return base64UrlOf(new Uint8Array(await crypto.subtle.deriveBits(params, base, 256)));
    })();
    adminHashCache.set(adminToken, hash);
  }
  return hash;
}

/** Maintenance: deletes sessions that have ended (expired, key revoked, admin token changed). */
export async function sweepConsoleSessions(env: Env, nowMs: number): Promise<number> {
  const adminToken = configuredAdminToken(env);
  const adminHash = adminToken === null ? null : await adminCredentialHash(adminToken);
  return deleteEndedConsoleSessions(env.DB, nowMs, adminHash, SWEEP_BATCH);
}
