// jobs.change in bulk, its plan and its writes: which of the tenant's jobs a filter matches, what
// the action does to each, and the writes (one D1 batch per database) pushed as control actions
// (../control-push.ts): when a write is confirmed, its shard refuses every claim of the job.
// Every filter field is checked by the door (an unknown one is refused, never ignored: a typo must
// not widen what is deleted); an empty filter is refused here unless the call says `all`.
import { validationError } from "../../core/common/field-errors";
import { jobStores } from "../../db/databases";
import { listTenantJobs, updateStoredJobVersions } from "../../db/job-bulk";
import type { StoredJob } from "../../db/jobs";
import { pushControlAction } from "../control-push";
import type { PushOptions } from "../job-writes";

/**
 * Jobs one call takes at most (the first this many that match); `done < matched` then says to call
 * again. Up to SYNC_BULK_MAX_JOBS of them are done before the answer (./change-jobs-in-bulk.ts).
 */
export const MAX_BULK_JOBS = 20_000;

export type BulkAction = "pause" | "resume" | "delete";

/** Fields combine with AND; an absent field selects everything. */
export interface BulkFilter {
  namePrefix?: string;
  status?: "ACTIVE" | "PAUSED" | "COMPLETED";
  /** Only jobs created strictly before this instant. */
  createdBeforeMs?: number;
  /** Every key given must equal the job's metadata value. */
  metadata?: Readonly<Record<string, unknown>>;
}

export interface BulkChange {
  tenantId: string;
  action: BulkAction;
  filter: BulkFilter;
  /** Asked for every job: required when the filter names no field. */
  all: boolean;
}

const TARGET: Record<BulkAction, StoredJob["status"]> = {
  pause: "PAUSED",
  resume: "ACTIVE",
  delete: "DELETED",
};
const FROM: Record<BulkAction, readonly StoredJob["status"][]> = {
  pause: ["ACTIVE"],
  resume: ["PAUSED"],
  delete: ["ACTIVE", "PAUSED", "COMPLETED"],
};

/** Refuses an empty filter without `all`: "everything" must be asked for. */
export function checkBulkScope(change: BulkChange): void {
  if (change.all || Object.values(change.filter).some((value) => value !== undefined)) return;
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
export async function planBulk(env: Env, change: BulkChange, nowMs: number): Promise<BulkPlan> {
  const { filter } = change;
  const listed = await listTenantJobs(
    jobStores(env),
    change.tenantId,
    {
      ...(filter.status === undefined ? {} : { status: filter.status }),
      ...(filter.namePrefix === undefined ? {} : { namePrefix: filter.namePrefix }),
    },
    MAX_BULK_JOBS,
  );
  const matched = listed.filter((job) => matchesFilter(job, filter));
  const target = TARGET[change.action];
  return {
    matched: matched.length,
    toChange: matched
      .filter((job) => FROM[change.action].includes(job.status))
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
  if (filter.createdBeforeMs !== undefined && job.createdAtMs >= filter.createdBeforeMs) return false;
  const metadata = (job.spec.metadata ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    // Own keys only: `constructor` or `__proto__` must not match what every object inherits.
    if (!Object.hasOwn(metadata, key) || metadata[key] !== value) return false;
  }
  return true;
}
