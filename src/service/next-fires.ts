// The next fire instants of a stored job as every door shows them (the v1 job resource, the
// console, the QStash schedule answers).

import { searchRunFires } from "../core/jobs/run-search";
import { exclusionSetsOf } from "../core/jobs/schedule-set-check";
import { compileExclusions, type ExclusionSet } from "../core/schedules/exclusions";
import { searchStopView } from "../core/schedules/search-bound";
import type { StoredJob } from "../db/jobs";
import { logEvent } from "../log";

/** Log an engine failure once per isolate, not once per job of a 1,000-job batch. */
let warnedEngineFailure = false;

export interface NextFires {
  /** RFC 3339 instants, after jitter and windows. */
  fireTimes: string[];
  /** Set when the search stopped at its bound with fewer than asked (search-bound.ts). */
  stopped: ReturnType<typeof searchStopView> | null;
}

/**
 * The next fire instants (after jitter) of an ACTIVE job, the union of its specs without the
 * instants its calendars (`calendars`, the tenant's calendars by name), `exclude` or delivery
 * window skip; empty for any other status. The row is already durable when this runs, so a
 * schedule engine failure degrades to an empty list rather than failing the request.
 */
export function nextFiresOf(
  job: StoredJob,
  nowMs: number,
  count: number,
  calendars: ReadonlyMap<string, ExclusionSet> = new Map(),
): NextFires {
  if (job.status !== "ACTIVE" || count <= 0) return { fireTimes: [], stopped: null };
  try {
    const exclusions = compileExclusions(exclusionSetsOf(job.spec, calendars));
    const search = searchRunFires(job.spec, job.id, nowMs, count, exclusions);
    return {
      fireTimes: search.fires.map((fire) => new Date(fire.fireAtMs).toISOString()),
      stopped: search.stop === null ? null : searchStopView(search.stop),
    };
  } catch (error) {
    if (!warnedEngineFailure) {
      warnedEngineFailure = true;
      logEvent("api.next_fire_times_unavailable", { error });
    }
    return { fireTimes: [], stopped: null };
  }
}

/** nextFiresOf's instants alone. */
export function nextFireTimesOf(
  job: StoredJob,
  nowMs: number,
  count: number,
  calendars: ReadonlyMap<string, ExclusionSet> = new Map(),
): string[] {
  return nextFiresOf(job, nowMs, count, calendars).fireTimes;
}
