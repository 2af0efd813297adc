// Which existing job or calendar a file's entry is, and what apply would do with it: the pure half
// of a plan (src/service/schedule-files/ reads the tenant's state and writes the result).
// A file's entries are identified by name. The tenant's names are not unique (the API allows two
// jobs of one name), so the file claims a name only where nothing else holds it, and never takes
// over what it does not manage unless asked (`adopt`).
import type { JobStatus } from "../runs/run-state";
import { nameInRange } from "./names";
import type { NameRange } from "./request";

/** What a plan needs to know of a live job (any status but DELETED). */
export interface ExistingJob {
  id: string;
  name: string;
  managedBy: string | null;
  status: JobStatus;
  createdAtMs: number;
  /** A job of the QStash-compatible API: only /v2 manages it. */
  qstash: boolean;
}

export type Match<T> =
  | { kind: "new" }
  | { kind: "managed"; existing: T }
  | { kind: "adopt"; existing: T }
  | { kind: "conflict"; message: string };

const byAge = (a: ExistingJob, b: ExistingJob) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1);
const ids = (jobs: readonly ExistingJob[]) => jobs.map((job) => job.id).join(", ");

/**
 * The existing job a file's job is, among the live jobs of its name: the oldest this file manages;
 * else nothing (a create) when the name is free; else, with `adopt`, the one job of that name no
 * file manages. Anything else is a conflict the user resolves.
 * @example matchJob("billing", [{ id: "job_1", managedBy: null, ... }], "schedules.yaml", false)
 * // { kind: "conflict", message: "a job of this name (job_1) exists that schedules.yaml does not manage: ..." }
 */
export function matchJob<T extends ExistingJob>(
  candidates: readonly T[],
  managedBy: string,
  adopt: boolean,
): Match<T> {
  const mine = candidates.filter((job) => job.managedBy === managedBy).sort(byAge);
  if (mine[0] !== undefined) return { kind: "managed", existing: mine[0] };
  if (candidates.length === 0) return { kind: "new" };
  const elsewhere = candidates.filter((job) => job.managedBy !== null);
  if (elsewhere[0] !== undefined) {
    return {
      kind: "conflict",
      message: `a job of this name (${ids(elsewhere)}) is managed by ${JSON.stringify(elsewhere[0].managedBy)}: remove it from that file, or rename this one`,
    };
  }
  const qstash = candidates.filter((job) => job.qstash);
  if (qstash.length > 0) {
    return {
      kind: "conflict",
      message: `a job of this name (${ids(qstash)}) belongs to the QStash-compatible API (/v2): rename this one`,
    };
  }
  if (!adopt) {
    return {
      kind: "conflict",
      message: `a job of this name (${ids(candidates)}) exists that ${JSON.stringify(managedBy)} does not manage: adopt it (apply --adopt), delete it, or rename this one`,
    };
  }
  const [only, ...more] = [...candidates].sort(byAge);
  if (only === undefined || more.length > 0) {
    return {
      kind: "conflict",
      message: `${candidates.length} jobs of this name exist (${ids(candidates)}): delete all but the one to adopt`,
    };
  }
  return { kind: "adopt", existing: only };
}

/** A calendar as a plan sees it: names are unique within a tenant. */
export interface ExistingCalendar {
  name: string;
  managedBy: string | null;
}

/** The stored calendar a file's calendar is, as matchJob decides it for jobs. */
export function matchCalendar<T extends ExistingCalendar>(
  existing: T | undefined,
  managedBy: string,
  adopt: boolean,
): Match<T> {
  if (existing === undefined) return { kind: "new" };
  if (existing.managedBy === managedBy) return { kind: "managed", existing };
  if (existing.managedBy !== null) {
    return {
      kind: "conflict",
      message: `the calendar is managed by ${JSON.stringify(existing.managedBy)}: remove it from that file, or rename this one`,
    };
  }
  if (!adopt) {
    return {
      kind: "conflict",
      message: `the calendar exists and ${JSON.stringify(managedBy)} does not manage it: adopt it (apply --adopt), or rename this one`,
    };
  }
  return { kind: "adopt", existing };
}

/** Why a managed job is deleted with `prune`. */
export type PruneReason = "not_in_file" | "duplicate";

/**
 * The managed jobs of the range that no entry of the file is: each with why it goes. A job whose
 * name the file holds is a duplicate (two applies that raced both created it; the oldest stays).
 */
export function prunableJobs<T extends ExistingJob>(
  managedInRange: readonly T[],
  matchedIds: ReadonlySet<string>,
  fileNames: ReadonlySet<string>,
  range: NameRange,
): { job: T; reason: PruneReason }[] {
  return managedInRange
    .filter((job) => !matchedIds.has(job.id) && nameInRange(job.name, range))
    .map((job) => ({ job, reason: fileNames.has(job.name) ? "duplicate" : "not_in_file" }));
}

/**
 * The status apply sets for the file's `paused`: PAUSED or ACTIVE when it says otherwise than the
 * job is, null when it says nothing (apply leaves a pause made elsewhere alone) or the job is done.
 */
export function desiredStatus(status: JobStatus, paused: boolean | undefined): "ACTIVE" | "PAUSED" | null {
  if (paused === true && status === "ACTIVE") return "PAUSED";
  if (paused === false && status === "PAUSED") return "ACTIVE";
  return null;
}
