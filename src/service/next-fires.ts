// The next fire instants of a stored job as every door shows them (the v1 job resource, the
// console, the QStash schedule answers).
import { compileExclusions, type ExclusionSet } from "../core/exclusions";
import { upcomingRunFires } from "../core/job-timeline";
import { exclusionSetsOf } from "../core/schedule-set-check";
import type { StoredJob } from "../db/jobs";
import { logEvent } from "../log";

/** Log an engine failure once per isolate, not once per job of a 1,000-job batch. */
let warnedEngineFailure = false;

/**
 * The next fire instants (after jitter) of an ACTIVE job, the union of its specs without the
 * instants its calendars (`calendars`, the tenant's calendars by name) or `exclude` cover; empty
 * for any other status. The row is already durable when this runs, so a schedule engine failure
 * degrades to an empty list rather than failing the request.
 */
export function nextFireTimesOf(
  job: StoredJob,
  nowMs: number,
  count: number,
  calendars: ReadonlyMap<string, ExclusionSet> = new Map(),
): string[] {
  if (job.status !== "ACTIVE" || count <= 0) return [];
  try {
    const exclusions = compileExclusions(exclusionSetsOf(job.spec, calendars));
    return upcomingRunFires(job.spec, job.id, nowMs, count, exclusions).map((fire) =>
      new Date(fire.fireAtMs).toISOString(),
    );
  } catch (error) {
    if (!warnedEngineFailure) {
      warnedEngineFailure = true;
      logEvent("api.next_fire_times_unavailable", { error });
    }
    return [];
  }
}
