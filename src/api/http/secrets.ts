import { sha256Hex } from "../../core/common/encoding";

const encoder = new TextEncoder();

/**
 * Compares two secrets without leaking where they differ or how long the expected one is:
 * both sides are hashed to 32 bytes first, then compared with no early exit.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  const left = new Uint8Array(a);
  const right = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < left.length; i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

/** SHA-256 of the JSON value with object keys sorted: equal bodies hash equal whatever their key order. */
export async function canonicalHash(value: unknown): Promise<string> {
  return sha256Hex(JSON.stringify(canonicalize(value)));
}

function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = canonicalize((value as Record<string, unknown>)[key]);
  return sorted;
}
