import { schedulesOf, unionFireTimes } from "../schedules/schedule-set";
import type { JobSpec } from "./job-spec";

/**
 * Why a job's [start_at, end_at] window can never fire, or null. The same bounds as the shard's
 * upcomingFires: an instant at start_at or end_at fires. Independent of now, so editing an old
 * job whose window has passed is not refused for it. Takes the normalized spec (an interval's
 * default anchor is start_at; a once `delay` is already an `at`).
 * @example activePeriodIssue({ ...spec, schedule: { type: "cron", expr: "0 9 * * *", timezone: "UTC" },
 *   start_at: "2026-01-01T10:00:00.000Z", end_at: "2026-01-01T11:00:00.000Z" })
 * // { path: "end_at", message: "the schedule never fires between start_at and end_at (next after start_at: 2026-01-02T09:00:00.000Z)" }
 */
export function activePeriodIssue(
  spec: Pick<JobSpec, "start_at" | "end_at" | "schedule" | "schedules">,
): { path: string; message: string } | null {
  if (spec.start_at === null) return null;
  const startMs = Date.parse(spec.start_at);
  const endMs = spec.end_at === null ? null : Date.parse(spec.end_at);
  if (endMs !== null && endMs <= startMs) return null; // "must be after start_at" says it already
  const [firstMs] = unionFireTimes(schedulesOf(spec), startMs - 1, 1);
  if (firstMs === undefined) {
    return { path: "start_at", message: "the schedule never fires at or after start_at" };
  }
  if (endMs !== null && firstMs > endMs) {
    return {
      path: "end_at",
      message: `the schedule never fires between start_at and end_at (next after start_at: ${new Date(firstMs).toISOString()})`,
    };
  }
  return null;
}
