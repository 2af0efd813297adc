// Byte encodings and keyed hashes every part of the Worker shares: base64 (RFC 4648 section 4),
// base64url without padding (section 5), hex, and a bounded cache of imported HMAC keys.
// WebCrypto only, so the pure core may use it; the typed client keeps its own copy of hex SHA-256
// (src/client/verify.ts) because it imports nothing of the Worker.

const encoder = new TextEncoder();

/** @example base64OfBytes(new Uint8Array([104, 105])) === "aGk=" */
export function base64OfBytes(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** base64 of the UTF-8 bytes of `text`. */
export function base64OfText(text: string): string {
  return base64OfBytes(encoder.encode(text));
}

/** RFC 4648 section 5 base64url without padding. @example base64UrlOf(new Uint8Array([251, 255])) === "-_8" */
export function base64UrlOf(bytes: Uint8Array): string {
  return base64OfBytes(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The bytes of unpadded base64url text; null for text that is not base64url. */
export function bytesOfBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

const HEX_OF_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/**
 * Lower-case hex, by table: every target call's signature is hex.
 *
 * @example toHex(new Uint8Array([1, 171])) === "01ab"
 */
export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX_OF_BYTE[byte];
  return hex;
}

/** Lower-case hex SHA-256 of the UTF-8 bytes of `text`. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return toHex(new Uint8Array(digest));
}

/**
 * HMAC SHA-256 keys imported from secret strings, kept per secret: importKey on every call cost
 * more than the MAC itself. At `limit` secrets the cache starts over; a failed import is not
 * cached, so the next call tries again.
 */
export function hmacKeyCache(
  limit: number,
  usages: ("sign" | "verify")[],
): (secret: string) => Promise<CryptoKey> {
  const keys = new Map<string, Promise<CryptoKey>>();
  return (secret) => {
    let key = keys.get(secret);
    if (!key) {
      if (keys.size >= limit) keys.clear();
      key = crypto.subtle.importKey(
        "raw",
        encoder.encode(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        usages,
      );
      key.catch(() => keys.delete(secret));
      keys.set(secret, key);
    }
    return key;
  };
}
