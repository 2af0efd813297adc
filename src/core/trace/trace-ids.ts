// A run's trace and span ids, derived from its run id alone: every attempt, whichever consumer or
// dispatcher makes it, and the trace the target continues from `traceparent` agree with no state
// shared between them. Not secret and not random, as W3C allows for ids a system derives itself.
import { hash32 } from "../common/stable-hash";

/** The spans of a run's trace, each with its own id (per attempt where there is one per attempt). */
export type RunSpanName = "run" | "fired" | "claimed" | "attempt" | "retried" | "settled";

/** 32 lowercase hex digits, never all zero (W3C's invalid id). @example traceIdOf("run_1").length === 32 */
export function traceIdOf(runId: string): string {
  return nonZero(hexWords(`trace:${runId}`, 4));
}

/** 16 lowercase hex digits: the span `name` of the run (of `attempt`, for per-attempt spans). */
export function spanIdOf(runId: string, name: RunSpanName, attempt = 0): string {
  return nonZero(hexWords(`span:${runId}:${name}:${attempt}`, 2));
}

/**
 * The W3C `traceparent` header naming the attempt's span as the target's parent, sampled.
 * @example traceparentOf("run_1", 2) // "00-<traceIdOf(run_1)>-<spanIdOf(run_1, attempt, 2)>-01"
 */
export function traceparentOf(runId: string, attempt: number): string {
  return `00-${traceIdOf(runId)}-${spanIdOf(runId, "attempt", attempt)}-01`;
}

function hexWords(seed: string, words: number): string {
  let hex = "";
  for (let word = 0; word < words; word++) hex += hash32(`${seed}#${word}`).toString(16).padStart(8, "0");
  return hex;
}

function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}
