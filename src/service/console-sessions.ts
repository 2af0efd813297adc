// What the console's sessions are checked against, shared by the console (sign-in, every request)
// and the maintenance pass (deleting sessions that have ended): the configured admin token and
// the hash an admin session keeps of it. The sessions themselves are in src/console/session.ts.
import { base64UrlOf } from "../core/encoding";
import { deleteEndedConsoleSessions } from "../db/sessions";

const encoder = new TextEncoder();
const SWEEP_BATCH = 1_000;

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
