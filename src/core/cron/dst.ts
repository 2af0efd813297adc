import { z } from "zod";
import type { WallResolution } from "./zone";

/** How a cron job with explicit hours treats wall times in a DST gap or overlap. */
export const dstPolicySchema = z.strictObject({
  gap: z.enum(["shift", "skip"]).default("shift"),
  overlap: z.enum(["first", "last", "both"]).default("first"),
});
export type DstPolicy = z.infer<typeof dstPolicySchema>;

/** The default DST policy for cron jobs with explicit hours. */
export const DEFAULT_DST_POLICY: DstPolicy = { gap: "shift", overlap: "first" };

/**
 * How a job treats wall times around DST transitions: `"elapsed"` for an hour field of `*` or
 * `*\/n` (gap times never fire, repeated times fire in both passes, the `dst` option is ignored),
 * or the job's policy for explicit hours.
 */
export type DstMode = "elapsed" | DstPolicy;

/**
 * The instants at which one matching wall time fires, ascending. The only place where the gap
 * and overlap rules live.
 *
 * @example fireInstantsForWallTime({ kind: "gap", shiftedAtMs: t, maxOffsetMs }, DEFAULT_DST_POLICY) // [t]
 * @example fireInstantsForWallTime({ kind: "gap", shiftedAtMs: t, maxOffsetMs }, "elapsed") // []
 */
export function fireInstantsForWallTime(resolution: WallResolution, mode: DstMode): number[] {
  switch (resolution.kind) {
    case "single":
      return [resolution.atMs];
    case "gap":
      // Shifted by the gap length: the wall time read with the offset in force before the gap.
      return mode !== "elapsed" && mode.gap === "shift" ? [resolution.shiftedAtMs] : [];
    case "overlap": {
      const both = [resolution.firstMs, resolution.secondMs];
      if (mode === "elapsed" || mode.overlap === "both") return both;
      return mode.overlap === "first" ? [resolution.firstMs] : [resolution.secondMs];
    }
  }
}
