// Bulk control (POST /v1/jobs/bulk): pause, resume or delete the caller's jobs that match a
// filter, for the runaway case. Every filter field is checked (an unknown one is refused, never
// ignored: a typo must not widen what is deleted), and an empty filter is refused unless the
// body says `"all": true`. The changes are written in one D1 batch per database and pushed as
// control actions (../../service/control-push.ts): when it answers, the shards refuse every claim
// of them. A large match goes on after a 202 (./bulk-control-async.ts).
import { jobStores } from "../../db/databases";
import { listTenantJobs, updateStoredJobVersions } from "../../db/job-bulk";
import type { StoredJob } from "../../db/jobs";
import { pushControlAction } from "../../service/control-push";
import type { PushOptions } from "../../service/job-writes";
import { validationError } from "../http/problem";
import type { JobBulk } from "./job-bulk-schema";

/**
 * Jobs one call takes at most (the first this many that match); `done < matched` then says to call
 * again. Up to SYNC_BULK_MAX_JOBS of them are done before the answer (./bulk-control-async.ts).
 */
export const MAX_BULK_JOBS = 20_000;

type BulkFilter = JobBulk["filter"];

const TARGET: Record<JobBulk["action"], StoredJob["status"]> = {
  pause: "PAUSED",
  resume: "ACTIVE",
  delete: "DELETED",
};
const FROM: Record<JobBulk["action"], readonly StoredJob["status"][]> = {
  pause: ["ACTIVE"],
  resume: ["PAUSED"],
  delete: ["ACTIVE", "PAUSED", "COMPLETED"],
};

/** Refuses an empty filter without `all: true`: "everything" must be asked for. */
export function checkBulkScope(body: JobBulk): void {
  if (Object.keys(body.filter).length > 0 || body.all === true) return;
  throw validationError([
    {
      path: "filter",
      message: 'name at least one of name_prefix, status, created_before, metadata (or set "all": true)',
    },
  ]);
}

/** What a bulk call will change: the matching jobs, split by what each needs. */
export interface BulkPlan {
  matched: number;
  /** Jobs to move into the action's state (their next version). */
  toChange: StoredJob[];
  /** Jobs already in the action's state whose shard never confirmed it: pushed again. */
  unconfirmed: StoredJob[];
  /** Jobs already in the action's state on their shard. */
  confirmedBefore: number;
}

/** The tenant's jobs that match, and what the action does to each. */
export async function planBulk(env: Env, tenantId: string, body: JobBulk, nowMs: number): Promise<BulkPlan> {
  const listed = await listTenantJobs(
    jobStores(env),
    tenantId,
    {
      ...(body.filter.status === undefined ? {} : { status: body.filter.status }),
      ...(body.filter.name_prefix === undefined ? {} : { namePrefix: body.filter.name_prefix }),
    },
    MAX_BULK_JOBS,
  );
  const matched = listed.filter((job) => matchesFilter(job, body.filter));
  const target = TARGET[body.action];
  return {
    matched: matched.length,
    toChange: matched
      .filter((job) => FROM[body.action].includes(job.status))
      .map((job) => ({ ...job, status: target, version: job.version + 1, updatedAtMs: nowMs })),
    // Repeating the call is how one whose shards were unreachable finishes.
    unconfirmed: matched.filter((job) => job.status === target && job.syncedVersion < job.version),
    confirmedBefore: matched.filter((job) => job.status === target && job.syncedVersion >= job.version)
      .length,
  };
}

/** Writes and pushes some of a plan's jobs; returns how many their shards confirmed. */
export async function applyBulkJobs(
  env: Env,
  toChange: StoredJob[],
  unconfirmed: StoredJob[],
  options: PushOptions,
): Promise<number> {
  const written = await updateStoredJobVersions(jobStores(env), toChange);
  const pushed = [...toChange.filter((job) => written.has(job.id)), ...unconfirmed];
  await pushControlAction(env, pushed, "stop", options);
  // Done means the shard has it, so every claim of the job's runs is refused from now on.
  return pushed.filter((job) => job.syncedVersion >= job.version).length;
}

function matchesFilter(job: StoredJob, filter: BulkFilter): boolean {
  if (filter.created_before !== undefined && job.createdAtMs >= Date.parse(filter.created_before))
    return false;
  const metadata = (job.spec.metadata ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    // Own keys only: `constructor` or `__proto__` must not match what every object inherits.
    if (!Object.hasOwn(metadata, key) || metadata[key] !== value) return false;
  }
  return true;
}
