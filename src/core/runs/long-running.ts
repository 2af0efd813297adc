// Long-running jobs: a target may accept a call and finish the work later, reporting back with a
// per-run token. The schemas for the job fields and the report bodies, and the one rule that
// says when an answer means "accepted, still running".
import { z } from "zod";
import { durationMs, durationSchema } from "../common/duration";

/** Largest `result` a completion may carry, serialized as JSON. */
export const MAX_RESULT_BYTES = 4 * 1024;
/** Longest `error` text a failed completion may carry. */
export const MAX_COMPLETION_ERROR_CHARS = 1_000;
export const HEARTBEAT_TIMEOUT_MIN_MS = 10_000;
export const HEARTBEAT_TIMEOUT_MAX_MS = 24 * 3_600_000;
export const DEFAULT_HEARTBEAT_TIMEOUT = "5m";

/**
 * `response`: the HTTP answer ends the attempt, unless it is `202` with `Edgecron-Async: true`.
 * `callback`: any 2xx answer only starts the work; the target reports back.
 */
export const completionModeSchema = z.enum(["response", "callback"]);
export type CompletionMode = z.infer<typeof completionModeSchema>;

/** How long an accepted run may go without a heartbeat or completion before the attempt fails. */
export const heartbeatTimeoutSchema = durationSchema({
  minMs: HEARTBEAT_TIMEOUT_MIN_MS,
  maxMs: HEARTBEAT_TIMEOUT_MAX_MS,
});

function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? "").byteLength;
}

/** The body of `POST /v1/runs/{id}/complete`. */
export const completionBodySchema = z
  .strictObject({
    status: z.enum(["succeeded", "failed"]),
    result: z
      .unknown()
      .optional()
      .refine((value) => value === undefined || jsonBytes(value) <= MAX_RESULT_BYTES, {
        message: `must be at most ${MAX_RESULT_BYTES} bytes of JSON`,
      }),
    error: z.string().max(MAX_COMPLETION_ERROR_CHARS).optional(),
    /** A failure is retried under the job's retry policy unless this is false. */
    retryable: z.boolean().default(true),
  })
  .superRefine((body, ctx) => {
    if (body.status === "succeeded" && body.error !== undefined) {
      ctx.addIssue({ code: "custom", path: ["error"], message: "only a failed completion has an error" });
    }
  });
export type CompletionBody = z.output<typeof completionBodySchema>;

/**
 * True when a 2xx answer only started the work: always in `callback` mode, and for `202` with
 * `Edgecron-Async: true` (case-insensitive) in `response` mode.
 *
 * @example answerStartsAsyncWork(202, "true", "response") === true
 * @example answerStartsAsyncWork(200, null, "response") === false
 */
export function answerStartsAsyncWork(
  status: number,
  asyncHeader: string | null,
  mode: CompletionMode,
): boolean {
  if (status < 200 || status > 299) return false;
  if (mode === "callback") return true;
  return status === 202 && asyncHeader?.trim().toLowerCase() === "true";
}

/** A job's long-running settings, for specs stored before these fields existed too. */
export function longRunningSettingsOf(spec: {
  completion?: CompletionMode;
  heartbeat_timeout?: string | number;
}): { completion: CompletionMode; heartbeatTimeoutMs: number } {
  return {
    completion: spec.completion ?? "response",
    heartbeatTimeoutMs: durationMs(spec.heartbeat_timeout ?? DEFAULT_HEARTBEAT_TIMEOUT),
  };
}
