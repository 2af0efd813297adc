// The Idempotency-Key header of the create routes: same key + same body replays the first
// answer; same key + another body is a conflict.
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "./app-env";
import { parseWith } from "./body";
import { EdgecronError } from "./problem";
import { canonicalHash } from "./secrets";

export interface Idempotency {
  key: string;
  requestHash: string;
}

/** The header, validated, with the body's canonical hash; null without the header. */
export async function readIdempotency(c: Context<AppEnv>, body: unknown): Promise<Idempotency | null> {
  const header = c.req.header("idempotency-key");
  if (header === undefined) return null;
  const key = parseWith(z.string().trim().min(1).max(255), header, ["Idempotency-Key"]);
  return { key, requestHash: await canonicalHash(body) };
}

export function idempotencyConflict(): EdgecronError {
  return new EdgecronError(
    "idempotency_conflict",
    "This Idempotency-Key was already used with another request body",
  );
}

/**
 * The stored key of item `index` of a batch sent with `key`. A newline cannot occur in a header
 * value, so no single create's key can ever equal a batch item's.
 */
export function batchItemKey(key: string, index: number): string {
  return `${key}\n${index}`;
}
