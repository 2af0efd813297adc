// Console sessions live on the server (D1, src/db/sessions.ts). The cookie carries only a random
// session id: no key, no token, nothing sealed that could be opened or derived from. The row holds
// who signed in (the admin, or a tenant key by id) and a hash of the credential used, so a session
// ends when it is signed out (row deleted), when its key is revoked, when EDGECRON_ADMIN_TOKEN
// changes (admin sessions compare their hash with the current token's on every request) and after
// SESSION_TTL_SECONDS; the maintenance pass deletes rows that have ended. CSRF tokens are HMACs of
// the session id under a key derived from the admin token, so they cannot be forged and die with
// the session.

import type { Caller } from "../api/http/app-env";
import { base64UrlOf, bytesOfBase64Url, sha256Hex } from "../core/encoding";
import { findApiKeyByHash } from "../db/api-keys";
import {
  type ConsoleSessionWithKey,
  deleteConsoleSession,
  findConsoleSession,
  insertConsoleSession,
} from "../db/sessions";
import { adminCredentialHash, configuredAdminToken } from "../service/console-sessions";

const encoder = new TextEncoder();
const SALT = encoder.encode("edgecron-console");
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
export async function tenantSignIn(db: D1Database, apiKey: string): Promise<SignIn | null> {
  const keyHash = await sha256Hex(apiKey);
  const key = await findApiKeyByHash(db, keyHash);
  if (key === null || key.revoked_at_ms !== null) return null;
  return { role: "tenant", tenantId: key.tenant_id, apiKeyId: key.id, keyHash };
}

/** Stores a new session and returns the id for the cookie. */
export async function openConsoleSession(db: D1Database, signIn: SignIn, nowMs: number): Promise<string> {
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
  await insertConsoleSession(db, {
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

/** The API caller a session acts as (see src/api/http/in-process-caller.ts). */
export function callerOfSession(session: Session): Caller {
  return { role: session.role, tenantId: session.tenantId, keyId: session.apiKeyId };
}

export function randomId(bytes = 18): string {
  return base64UrlOf(crypto.getRandomValues(new Uint8Array(bytes)));
}

const macKeyCache = new Map<string, Promise<CryptoKey>>();

function csrfKey(secret: string): Promise<CryptoKey> {
  let key = macKeyCache.get(secret);
  if (!key) {
    key = (async () => {
      const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: SALT, info: encoder.encode("csrf-hmac-v1") },
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign", "verify"],
      );
    })();
    macKeyCache.set(secret, key);
  }
  return key;
}

/** CSRF token for a purpose-qualified subject (`session:<id>` or `login:<nonce>`). */
export async function csrfToken(secret: string, subject: string): Promise<string> {
  const mac = await csrfKey(secret);
  return base64UrlOf(new Uint8Array(await crypto.subtle.sign("HMAC", mac, encoder.encode(subject))));
}

/** Constant-time check (HMAC verify) of a submitted CSRF token. */
export async function verifyCsrf(
  secret: string,
  subject: string,
  token: string | undefined,
): Promise<boolean> {
  if (!token) return false;
  const signature = bytesOfBase64Url(token);
  if (signature?.length !== 32) return false;
  return crypto.subtle.verify("HMAC", await csrfKey(secret), signature, encoder.encode(subject));
}
