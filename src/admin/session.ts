// The console session lives in one cookie, sealed with AES-GCM (confidentiality + integrity) under a
// key derived from EDGECRON_ADMIN_TOKEN with HKDF-SHA256: Workers keep nothing in memory between
// requests, and a sealed cookie needs no storage. CSRF tokens are HMACs of the session id under a
// second derived key, so they cannot be forged without the secret and die with the session.

const encoder = new TextEncoder();
const SALT = encoder.encode("edgecron-console");
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export interface Session {
  /** The bearer token the console uses for API calls: a tenant key or the admin token. */
  token: string;
  /** Random per sign-in; the CSRF token is an HMAC of it. */
  sid: string;
  role: "admin" | "tenant";
  /** The key's own tenant (null for the admin token). */
  tenantId: string | null;
  /** The tenant an admin is looking at (sent as Edgecron-Tenant); null = none chosen. */
  actingTenant: string | null;
  expiresAtMs: number;
}

interface Keys {
  seal: CryptoKey;
  mac: CryptoKey;
}

const keyCache = new Map<string, Promise<Keys>>();

function deriveKeys(secret: string): Promise<Keys> {
  let keys = keyCache.get(secret);
  if (!keys) {
    keys = (async () => {
      const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
      const hkdf = (info: string) => ({
        name: "HKDF",
        hash: "SHA-256",
        salt: SALT,
        info: encoder.encode(info),
      });
      const seal = await crypto.subtle.deriveKey(
        hkdf("session-aes-gcm-v1"),
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
      const mac = await crypto.subtle.deriveKey(
        hkdf("csrf-hmac-v1"),
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign", "verify"],
      );
      return { seal, mac };
    })();
    keyCache.set(secret, keys);
  }
  return keys;
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

export function randomId(bytes = 18): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

const AAD = encoder.encode("edgecron-console-session-v1");

export async function sealSession(secret: string, session: Session): Promise<string> {
  const { seal } = await deriveKeys(secret);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = encoder.encode(JSON.stringify(session));
  const cipher = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: AAD }, seal, plain),
  );
  const out = new Uint8Array(iv.length + cipher.length);
  out.set(iv);
  out.set(cipher, iv.length);
  return toBase64Url(out);
}

/** Returns the session, or null if the cookie was tampered with, sealed under another secret or expired. */
export async function openSession(secret: string, sealed: string, nowMs: number): Promise<Session | null> {
  const bytes = fromBase64Url(sealed);
  if (!bytes || bytes.length < 12 + 16) return null;
  const { seal } = await deriveKeys(secret);
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: AAD },
      seal,
      bytes.slice(12),
    );
    const session = JSON.parse(new TextDecoder().decode(plain)) as Session;
    return session.expiresAtMs > nowMs ? session : null;
  } catch {
    return null;
  }
}

/** CSRF token for a purpose-qualified subject (`session:<sid>` or `login:<nonce>`). */
export async function csrfToken(secret: string, subject: string): Promise<string> {
  const { mac } = await deriveKeys(secret);
  return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", mac, encoder.encode(subject))));
}

/** Constant-time check (HMAC verify) of a submitted CSRF token. */
export async function verifyCsrf(
  secret: string,
  subject: string,
  token: string | undefined,
): Promise<boolean> {
  if (!token) return false;
  const signature = fromBase64Url(token);
  if (signature?.length !== 32) return false;
  const { mac } = await deriveKeys(secret);
  return crypto.subtle.verify("HMAC", mac, signature, encoder.encode(subject));
}
