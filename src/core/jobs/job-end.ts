// When a job's schedule has no instant left, where its spec alone says so: a one-shot after its
// instant, any job after its end_at. Such a job reads COMPLETED from then on without anyone
// writing it (src/db/jobs.ts): its shard does not write the status back per job, which for a
// burst of one-shots was a D1 row and an index entry per run. A job that completes any other way
// (max_runs) has its COMPLETED written as before.
import { durationMs } from "../common/duration";
import { schedulesOf } from "../schedules/schedule-set";
import type { JobSpec } from "./job-spec";

/**
 * The instant after which the spec fires nothing (its last fire time at the latest, jitter
 * included), or null when that is not the spec's to say: a max_runs count, or a delivery or
 * flexible window that may move a fire later than its instant.
 *
 * @example impliedEndMs({ schedule: { type: "once", at: "2027-01-01T00:00:00Z" }, jitter: null, ... })
 * // Date.parse("2027-01-01T00:00:00Z")
 */
export function impliedEndMs(
  spec: Pick<
    JobSpec,
    "schedule" | "schedules" | "max_runs" | "window" | "flexible_window" | "jitter" | "end_at"
  >,
): number | null {
  if (spec.max_runs !== null || spec.window !== null || spec.flexible_window !== null) return null;
  const schedules = schedulesOf(spec);
  let endMs: number | null = null;
  if (
    schedules.length > 0 &&
    schedules.every((schedule) => schedule.type === "once" && schedule.at !== undefined)
  ) {
    endMs = Math.max(...schedules.map((schedule) => Date.parse((schedule as { at: string }).at)));
  }
  if (spec.end_at !== null)
    endMs = endMs === null ? Date.parse(spec.end_at) : Math.min(endMs, Date.parse(spec.end_at));
  if (endMs === null || Number.isNaN(endMs)) return null;
  return endMs + (spec.jitter === null ? 0 : durationMs(spec.jitter));
}
