// The Idempotency-Key header of the create routes: same key + same body replays the first
// answer; same key + another body is a conflict.
import type { Context } from "hono";
import { z } from "zod";
import type { Idempotency } from "../../service/jobs/idempotency";
import type { AppEnv } from "./app-env";
import { parseWith } from "./body";
import { canonicalHash } from "./secrets";

export { batchItemKey, type Idempotency, idempotencyConflict } from "../../service/jobs/idempotency";

/** The header, validated, with the body's canonical hash; null without the header. */
export async function readIdempotency(c: Context<AppEnv>, body: unknown): Promise<Idempotency | null> {
  const header = c.req.header("idempotency-key");
  if (header === undefined) return null;
  const key = parseWith(z.string().trim().min(1).max(255), header, ["Idempotency-Key"]);
  return { key, requestHash: await canonicalHash(body) };
}
