// The console's side of a session: the API caller it acts as, and its CSRF tokens. CSRF tokens
// are HMACs of the session id under a key derived from the admin token, so they cannot be forged
// and die with the session. The sessions themselves (stored, checked, ended) are
// src/service/console-sessions.ts.

import type { Caller } from "../api/http/app-env";
import { base64UrlOf, bytesOfBase64Url } from "../core/common/encoding";
import type { Session } from "../service/console-sessions";

const encoder = new TextEncoder();
const SALT = encoder.encode("edgecron-console");

/** The API caller a session acts as (see src/api/http/in-process-caller.ts). */
export function callerOfSession(session: Session): Caller {
  return { role: session.role, tenantId: session.tenantId, keyId: session.apiKeyId };
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
