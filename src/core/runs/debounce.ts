// Debounced triggers: triggers of one job and key inside a period become one run. The rule lives
// here; the job's shard, the single writer of its runs, applies it to the window it stores for
// (job, key) (durable-objects/shard/runs/debounce-windows.ts), so a fold survives restarts.
//
// - leading: the first trigger runs now and opens a window of `period`; every trigger inside that
//   window folds into that run, whatever state the run is in by then.
// - trailing: the first trigger creates a run due `period` later; each further trigger while that
//   run still waits folds into it and moves it to `period` after itself, but never later than
//   `max_wait` after the first (default: no bound beyond the period's own sliding).
import { z } from "zod";
import { durationSchema, parseDurationMs } from "../common/duration";

export const DEBOUNCE_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;
export const DEBOUNCE_KEY_MESSAGE = "must be 1-100 characters: letters, digits, '.', '_', ':' or '-'";
export const MIN_DEBOUNCE_PERIOD_MS = 1_000;
export const MAX_DEBOUNCE_PERIOD_MS = 24 * 3_600_000;
export const MAX_DEBOUNCE_WAIT_MS = 7 * 24 * 3_600_000;
/** The key of a job's triggers when neither the job nor the trigger names one. */
export const DEFAULT_DEBOUNCE_KEY = "default";

export const debounceKeySchema = z.string().regex(DEBOUNCE_KEY_PATTERN, DEBOUNCE_KEY_MESSAGE);

export const debounceSchema = z
  .strictObject({
    key: debounceKeySchema.optional(),
    period: durationSchema({ minMs: MIN_DEBOUNCE_PERIOD_MS, maxMs: MAX_DEBOUNCE_PERIOD_MS }),
    mode: z.enum(["leading", "trailing"]),
    max_wait: durationSchema({ minMs: MIN_DEBOUNCE_PERIOD_MS, maxMs: MAX_DEBOUNCE_WAIT_MS }).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.max_wait === undefined) return;
    if (value.mode === "leading") {
      ctx.addIssue({ code: "custom", path: ["max_wait"], message: "applies to mode `trailing` only" });
      return;
    }
    const waitMs = parseDurationMs(value.max_wait) ?? 0;
    if (waitMs < (parseDurationMs(value.period) ?? 0)) {
      ctx.addIssue({ code: "custom", path: ["max_wait"], message: "must be at least `period`" });
    }
  });
export type Debounce = z.output<typeof debounceSchema>;

export interface DebounceRule {
  mode: "leading" | "trailing";
  periodMs: number;
  /** Trailing only: how long after the window's first trigger its run fires at the latest. */
  maxWaitMs: number | null;
}

export function debounceRuleOf(debounce: Debounce): DebounceRule {
  return {
    mode: debounce.mode,
    periodMs: parseDurationMs(debounce.period) ?? MIN_DEBOUNCE_PERIOD_MS,
    maxWaitMs: debounce.max_wait === undefined ? null : (parseDurationMs(debounce.max_wait) ?? null),
  };
}

/** The key a trigger folds under: the trigger's own, else the job's, else the default. */
export function debounceKeyOf(debounce: Debounce, triggerKey: string | undefined): string {
  return triggerKey ?? debounce.key ?? DEFAULT_DEBOUNCE_KEY;
}

/** The stored window of (job, key): its run, when it opened and when its run fires. */
export interface DebounceWindow {
  runId: string;
  openedAtMs: number;
  fireAtMs: number;
  /** Trailing: the run has not been sent yet, so it can still take a trigger and move. */
  runWaiting: boolean;
}

export type DebounceDecision =
  /** A new run, firing at `fireAtMs`; it opens a new window. */
  | { action: "new"; fireAtMs: number }
  /** The trigger folds into the window's run, which now fires at `fireAtMs` (unchanged when leading). */
  | { action: "fold"; runId: string; fireAtMs: number };

/**
 * What a trigger at `nowMs` does.
 * @example
 * decideDebounce({ mode: "trailing", periodMs: 30_000, maxWaitMs: 60_000 },
 *   { runId: "r", openedAtMs: 0, fireAtMs: 30_000, runWaiting: true }, 50_000)
 * // -> { action: "fold", runId: "r", fireAtMs: 60_000 } (80_000, capped by max_wait)
 */
export function decideDebounce(
  rule: DebounceRule,
  window: DebounceWindow | null,
  nowMs: number,
): DebounceDecision {
  if (rule.mode === "leading") {
    if (window !== null && nowMs < window.openedAtMs + rule.periodMs) {
      return { action: "fold", runId: window.runId, fireAtMs: window.fireAtMs };
    }
    return { action: "new", fireAtMs: nowMs };
  }
  if (window?.runWaiting && nowMs < window.fireAtMs) {
    const latestMs = rule.maxWaitMs === null ? Number.POSITIVE_INFINITY : window.openedAtMs + rule.maxWaitMs;
    const fireAtMs = Math.max(window.fireAtMs, Math.min(nowMs + rule.periodMs, latestMs));
    return { action: "fold", runId: window.runId, fireAtMs };
  }
  return { action: "new", fireAtMs: nowMs + rule.periodMs };
}
