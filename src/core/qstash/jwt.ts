// The `Upstash-Signature` of a QStash-format delivery: an HS256 JWT that the official
// `@upstash/qstash` Receiver verifies (jose `jwtVerify` with issuer "Upstash", then `sub` against
// the URL it was given and `body` against the SHA-256 of the raw body it read). Pure: the clock,
// the token id and Web Crypto are parameters.

/** How long a signature stays valid: QStash's own default (its Receiver checks `exp`). */
export const QSTASH_SIGNATURE_TTL_SECONDS = 5 * 60;
export const QSTASH_ISSUER = "Upstash";
/**
 * `nbf` is this much before `iat`: the Receiver checks `nbf` against its own clock with no
 * tolerance by default, so with `nbf = iat` an endpoint whose clock is a few milliseconds behind
 * ours refuses calls made just after a second boundary.
 */
export const QSTASH_NOT_BEFORE_LEEWAY_SECONDS = 5;

export interface QstashClaims {
  iss: typeof QSTASH_ISSUER;
  /** The destination URL exactly as called. */
  sub: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  /** base64url(SHA-256(raw body)), unpadded. */
  body: string;
}

import { base64UrlOf } from "../common/encoding";

const encoder = new TextEncoder();

/**
 * The claims of one delivery: issued at `nowMs` (whole seconds), valid for five minutes.
 * @example qstashClaims({ url: "https://a.b/p?x=1", bodySha256: digest, nowMs: 1_764_403_200_000, jti: "jwt_1" })
 * // { iss: "Upstash", sub: "https://a.b/p?x=1", iat: 1764403200, nbf: 1764403195, exp: 1764403500, ... }
 */
export function qstashClaims(input: {
  url: string;
  bodySha256: Uint8Array;
  nowMs: number;
  jti: string;
}): QstashClaims {
  const iat = Math.floor(input.nowMs / 1000);
  return {
    iss: QSTASH_ISSUER,
    sub: input.url,
    iat,
    nbf: iat - QSTASH_NOT_BEFORE_LEEWAY_SECONDS,
    exp: iat + QSTASH_SIGNATURE_TTL_SECONDS,
    jti: input.jti,
    body: base64UrlOf(input.bodySha256),
  };
}

/**
 * The compact JWS (`header.payload.signature`) of the claims, HS256 keyed with the UTF-8 bytes
 * of the signing key string (what the Receiver does with the key it is given). `key` may be that
 * string, or an HMAC SHA-256 CryptoKey imported from those bytes (callers cache imports).
 * @example await signQstashJwt(crypto.subtle, "sig_current", claims) // "eyJhbGciOiJIUzI1NiIs..."
 */
export async function signQstashJwt(
  subtle: SubtleCrypto,
  key: string | CryptoKey,
  claims: QstashClaims,
): Promise<string> {
  const header = base64UrlOf(encoder.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));
  const payload = base64UrlOf(encoder.encode(JSON.stringify(claims)));
  const signingInput = `${header}.${payload}`;
  const hmacKey =
    typeof key === "string"
      ? await subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      : key;
  const mac = await subtle.sign("HMAC", hmacKey, encoder.encode(signingInput));
  return `${signingInput}.${base64UrlOf(new Uint8Array(mac))}`;
}

/**
 * The signature header for a delivery of `body` to `url`.
 * @example await qstashSignature(crypto.subtle, { signingKey, url, body: "{}", nowMs, jti })
 */
export async function qstashSignature(
  subtle: SubtleCrypto,
  input: { signingKey: string | CryptoKey; url: string; body: string; nowMs: number; jti: string },
): Promise<string> {
  const digest = new Uint8Array(await subtle.digest("SHA-256", encoder.encode(input.body)));
  return signQstashJwt(
    subtle,
    input.signingKey,
    qstashClaims({ url: input.url, bodySha256: digest, nowMs: input.nowMs, jti: input.jti }),
  );
}
