import type { Context } from "hono";
import type { ExclusionSet } from "../../../core/schedules/exclusions";
import type { StoredJob } from "../../../service/jobs/stored-job";
import { nextFiresOf } from "../../../service/next-fires";
import type { AppEnv } from "../../http/app-env";

export { MAX_NEXT_FIRES } from "../schemas";

export const DEFAULT_NEXT_FIRES = 5;

/** The job resource of docs/API.md. */
export function jobResource(
  job: StoredJob,
  nowMs: number,
  fireCount = DEFAULT_NEXT_FIRES,
  calendars?: ReadonlyMap<string, ExclusionSet>,
) {
  const { name, ...policies } = job.spec;
  const next = nextFiresOf(job, nowMs, fireCount, calendars);
  return {
    id: job.id,
    name,
    status: job.status,
    version: job.version,
    shard: job.shard,
    ...policies,
    // Jobs stored before these fields existed have neither.
    window: job.spec.window ?? null,
    flexible_window: job.spec.flexible_window ?? null,
    managed_by: job.spec.managed_by ?? null,
    next_fire_times: next.fireTimes,
    // Only when the search stopped short of `fireCount` (docs/API.md): never a silent short list.
    ...(next.stopped === null ? {} : { next_fire_times_stopped: next.stopped }),
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
