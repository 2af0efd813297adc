// Per-run tokens: what a long-running target presents to report back on its run. A token names
// the attempt it was issued for (shard, attempt, fence) and carries an HMAC of those and the run
// id under a server-side secret, so verifying it needs no storage lookup, and a token of an
// earlier attempt still verifies but names a superseded fence (the shard refuses it).

import { base64UrlOf, bytesOfBase64Url, hmacKeyCache } from "../common/encoding";

const PREFIX = "ert1";
const encoder = new TextEncoder();

/** What a token says about the attempt it was issued for. */
export interface RunTokenClaims {
  shard: number;
  attempt: number;
  fence: number;
}

function macInput(runId: string, claims: RunTokenClaims): Uint8Array {
  return encoder.encode(`edgecron-run-token:v1:${runId}:${claims.shard}:${claims.attempt}:${claims.fence}`);
}

/** A token is issued for every target call: its key is imported once per secret. */
const hmacKey = hmacKeyCache(16, ["sign", "verify"]);

/**
 * The token for one attempt of a run: `ert1.<shard>.<attempt>.<fence>.<mac>`.
 *
 * @example await issueRunToken("s3cret", "run_abc_1764403200000", { shard: 3, attempt: 1, fence: 42 })
 * // "ert1.3.1.42.<43 base64url characters>"
 */
export async function issueRunToken(secret: string, runId: string, claims: RunTokenClaims): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), macInput(runId, claims));
  return `${PREFIX}.${claims.shard}.${claims.attempt}.${claims.fence}.${base64UrlOf(new Uint8Array(mac))}`;
}

const TOKEN_PATTERN = /^ert1\.(\d{1,6})\.(\d{1,6})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/**
 * The token's claims when its MAC is right for `runId`, else null. The comparison is
 * `crypto.subtle.verify`, which runs in constant time.
 *
 * @example await verifyRunToken("s3cret", runId, token) // { shard: 3, attempt: 1, fence: 42 } or null
 */
export async function verifyRunToken(
  secret: string,
  runId: string,
  token: string,
): Promise<RunTokenClaims | null> {
  const match = TOKEN_PATTERN.exec(token.trim());
  if (!match) return null;
  const claims = { shard: Number(match[1]), attempt: Number(match[2]), fence: Number(match[3]) };
  const mac = bytesOfBase64Url(match[4] as string);
  if (mac === null) return null;
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, macInput(runId, claims));
  return valid ? claims : null;
}

/**
 * The run-token secret: `EDGECRON_RUN_TOKEN_SECRET` when set, else a key derived from the admin
 * token (HMAC under a fixed label, so the token itself never signs anything). Rotating whichever
 * is used invalidates the tokens of runs still open.
 */
export async function runTokenSecretFrom(dedicated: string | undefined, adminToken: string): Promise<string> {
  if (dedicated !== undefined && dedicated !== "") return dedicated;
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(adminToken),
    encoder.encode("edgecron run tokens v1"),
  );
  return base64UrlOf(new Uint8Array(mac));
}
