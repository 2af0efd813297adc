// The random secrets edgecron hands out: tenants' signing secrets, API keys, console session ids.
// Made here, where they are stored, so every door gets the same length and form.
import { base64UrlOf, toHex } from "../core/common/encoding";

export function randomHex(byteCount: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(byteCount)));
}

/** HMAC signing secrets: 32 random bytes, hex. */
export function newSigningSecret(): string {
  return randomHex(32);
}

/** `ek_` + 32 random bytes as hex (256 bits). Only its SHA-256 is stored. */
export function newApiKey(): string {
  return `ek_${randomHex(32)}`;
}

/** `bytes` random bytes as unpadded base64url (a console session id is 32 of them). */
export function randomId(bytes = 18): string {
  return base64UrlOf(crypto.getRandomValues(new Uint8Array(bytes)));
}
