import { z } from "zod";

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_PATTERN = /^(\d{1,9})(ms|s|m|h|d)$/;

/** Longest duration we accept anywhere (backoff caps, grace, delays): one year. */
export const MAX_DURATION_MS = 366 * UNIT_MS.d;

/**
 * Parses "30s", "15m", "2h", "1d", "250ms" or an integer number of milliseconds.
 * Returns null for anything else. `parseDurationMs("2h") === 7_200_000`.
 */
export function parseDurationMs(value: unknown): number | null {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) && value >= 0 && value <= MAX_DURATION_MS ? value : null;
  }
  if (typeof value !== "string") return null;
  const match = DURATION_PATTERN.exec(value.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_DURATION_MS ? ms : null;
}

/** Formats milliseconds back into the largest whole unit: 90_000 -> "90s", 7_200_000 -> "2h". */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A duration field: accepts the string or integer forms, keeps the user's value (so reads echo
 * what was written), and enforces bounds in milliseconds.
 */
export function durationSchema(bounds: { minMs?: number; maxMs?: number } = {}) {
  const minMs = bounds.minMs ?? 0;
  const maxMs = bounds.maxMs ?? MAX_DURATION_MS;
  return z.union([z.string(), z.number()]).superRefine((value, ctx) => {
    const ms = parseDurationMs(value);
    if (ms === null) {
      ctx.addIssue({
        code: "custom",
        message:
          'must be a duration such as "30s", "15m", "2h", "1d" or a non-negative integer of milliseconds',
      });
    } else if (ms < minMs || ms > maxMs) {
      ctx.addIssue({
        code: "custom",
        message: `must be between ${formatDuration(minMs)} and ${formatDuration(maxMs)}`,
      });
    }
  });
}

/** Like parseDurationMs, for values a schema already validated. */
export function durationMs(value: string | number): number {
  const ms = parseDurationMs(value);
  if (ms === null) throw new Error(`invalid duration ${JSON.stringify(value)} passed validation`);
  return ms;
}
