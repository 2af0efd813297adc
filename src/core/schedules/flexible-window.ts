// Flexible windows (EventBridge Scheduler's "flexible time window"): each instant fires at a
// point inside [instant, instant + max] chosen from (job, instant), so 10,000 jobs at 00:00 spread
// over the window by themselves and every caller (preview, shard, restart) finds the same point.
import { z } from "zod";
import { durationSchema } from "../common/duration";
import { hash32 } from "../common/stable-hash";

/** Longest flexible window: a day (EventBridge's cap too). */
export const MAX_FLEXIBLE_WINDOW_MS = 86_400_000;

export const flexibleWindowSchema = z.strictObject({
  /** The latest a fire may land after its instant: "15m". */
  max: durationSchema({ minMs: 1_000, maxMs: MAX_FLEXIBLE_WINDOW_MS }),
});

export type FlexibleWindow = z.output<typeof flexibleWindowSchema>;

/**
 * The offset in [0, spreadMs] for one (job, instant): a stable hash scaled onto the spread, so a
 * tenant's jobs land uniformly over it. Salted apart from `fireJitterMs`, so a job with both gets
 * two independent offsets.
 *
 * @example flexibleOffsetMs("job_1", Date.UTC(2026, 11, 1), 600_000) // integer in [0, 600_000], same every call
 */
export function flexibleOffsetMs(jobId: string, scheduledAtMs: number, spreadMs: number): number {
  if (!(spreadMs >= 1)) return 0;
  const whole = Math.floor(spreadMs);
  return Math.min(Math.floor((hash32(`flex:${jobId}:${scheduledAtMs}`) / 2 ** 32) * (whole + 1)), whole);
}
