import type { Context } from "hono";
import { compileExclusions, type ExclusionSet } from "../../../core/exclusions";
import { upcomingRunFires } from "../../../core/job-timeline";
import { exclusionSetsOf } from "../../../core/schedule-set-check";
import type { StoredJob } from "../../../db/jobs";
import { logEvent } from "../../../log";
import type { AppEnv } from "../../http/app-env";

export { MAX_NEXT_FIRES } from "../schemas";

export const DEFAULT_NEXT_FIRES = 5;

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

/** The job resource of docs/API.md. */
export function jobResource(
  job: StoredJob,
  nowMs: number,
  fireCount = DEFAULT_NEXT_FIRES,
  calendars?: ReadonlyMap<string, ExclusionSet>,
) {
  const { name, ...policies } = job.spec;
  return {
    id: job.id,
    name,
    status: job.status,
    version: job.version,
    shard: job.shard,
    ...policies,
    next_fire_times: nextFireTimesOf(job, nowMs, fireCount, calendars),
    created_at: new Date(job.createdAtMs).toISOString(),
    updated_at: new Date(job.updatedAtMs).toISOString(),
  };
}

/**
 * One job as the response body, with `ETag: "<version>"` (usable as `If-Match` on PATCH) and, on
 * create, `Location`.
 */
export function jobResponse(
  c: Context<AppEnv>,
  job: StoredJob,
  options: {
    nowMs?: number;
    status?: 200 | 201;
    fireCount?: number;
    calendars?: ReadonlyMap<string, ExclusionSet>;
  } = {},
): Response {
  c.header("ETag", `"${job.version}"`);
  if (options.status === 201) c.header("Location", `/v1/jobs/${job.id}`);
  return c.json(
    jobResource(job, options.nowMs ?? Date.now(), options.fireCount, options.calendars),
    options.status ?? 200,
  );
}
