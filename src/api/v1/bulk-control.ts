// Bulk control (POST /v1/jobs/bulk): pause, resume or delete the caller's jobs that match a
// filter, for the runaway case. Every filter field is checked (an unknown one is refused, never
// ignored: a typo must not widen what is deleted), and an empty filter is refused unless the
// body says `"all": true`. The changes are written in one D1 batch per database and pushed as
// control actions (./control-push.ts): when it answers, the shards refuse every claim of them.
import { jobStores } from "../../db/databases";
import { listTenantJobs, updateStoredJobVersions } from "../../db/job-bulk";
import type { StoredJob } from "../../db/jobs";
import { pushControlAction } from "../../service/control-push";
import type { PushOptions } from "../../service/job-writes";
import { validationError } from "../http/problem";
import type { JobBulk } from "./job-bulk-schema";

/** Jobs one call changes at most; `done < matched` then says to call again. */
export const MAX_BULK_JOBS = 5_000;

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

/** Applies the action to the tenant's matching jobs; see the module comment. */
export async function applyBulk(
  env: Env,
  tenantId: string,
  body: JobBulk,
  nowMs: number,
  options: PushOptions,
): Promise<{ matched: number; done: number }> {
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
  const next = matched
    .filter((job) => FROM[body.action].includes(job.status))
    .map((job) => ({ ...job, status: target, version: job.version + 1, updatedAtMs: nowMs }));
  const written = await updateStoredJobVersions(jobStores(env), next);
  // Jobs already in the action's state whose shard never confirmed it are pushed again: that is
  // how repeating the call finishes one whose shards were unreachable.
  const unconfirmed = matched.filter((job) => job.status === target && job.syncedVersion < job.version);
  const pushed = [...next.filter((job) => written.has(job.id)), ...unconfirmed];
  await pushControlAction(env, pushed, "stop", options);
  // Done means the shard has it, so every claim of the job's runs is refused from now on.
  const confirmedBefore = matched.filter((job) => job.status === target && job.syncedVersion >= job.version);
  const confirmedNow = pushed.filter((job) => job.syncedVersion >= job.version);
  return { matched: matched.length, done: confirmedBefore.length + confirmedNow.length };
}

function matchesFilter(job: StoredJob, filter: BulkFilter): boolean {
  if (filter.created_before !== undefined && job.createdAtMs >= Date.parse(filter.created_before))
    return false;
  const metadata = (job.spec.metadata ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    if (metadata[key] !== value) return false;
  }
  return true;
}
