import type { CronSpec } from "./fields";
import { type CronParseResult, parseCron } from "./parse";

const MAX_ENTRIES = 2_000;
const parsed = new Map<string, CronParseResult>();

/**
 * `parseCron` with a bounded cache keyed by the expression text: the shard's alarm tick asks
 * for the next fire time of the same few expressions thousands of times a second.
 */
export function parseCronCached(expr: string): CronParseResult {
  const hit = parsed.get(expr);
  if (hit) return hit;
  const result = parseCron(expr);
  if (parsed.size >= MAX_ENTRIES) {
    // Evict the oldest entry (Map iterates in insertion order).
    const oldest = parsed.keys().next().value;
    if (oldest !== undefined) parsed.delete(oldest);
  }
  parsed.set(expr, result);
  return result;
}

/** The parsed expression; throws on an invalid one (schedules are validated before they are stored). */
export function cronSpecOf(expr: string): CronSpec {
  const result = parseCronCached(expr);
  if (!result.ok)
    throw new Error(`invalid cron expression ${JSON.stringify(expr)}: ${result.issues.join("; ")}`);
  return result.spec;
}
