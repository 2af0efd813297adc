// The jobs of a schedule file's plan: each of the request's jobs matched with the tenant's job of
// its name, checked as a create (or an edit) checks it, and compared field by field; and, with
// prune, the managed jobs of the request's name range that the file no longer holds.
import type { FieldError } from "../../core/common/errors";
import { joinPath } from "../../core/common/field-errors";
import { type JobSpec, jobCreateSchema } from "../../core/jobs/job-spec";
import { comparableSpec, storedComparable, withStoredAnchors } from "../../core/schedule-file/comparable";
import { diffJson, type FieldChange, hideSecrets, sameJson } from "../../core/schedule-file/diff";
import type { CheckedItems, FileJobItem } from "../../core/schedule-file/items";
import { desiredStatus, type ExistingJob, matchJob, prunableJobs } from "../../core/schedule-file/plan";
import type { JobPlanEntry, PlanCounts, PlanNote } from "../../core/schedule-file/plan-schema";
import type { FileRequest } from "../../core/schedule-file/request";
import type { ExclusionSet } from "../../core/schedules/exclusions";
import { BATCH_SEARCH_UNITS, type SearchAllowance } from "../../core/schedules/schedule-check";
import { schedulesOf } from "../../core/schedules/schedule-set";
import { jobStores } from "../../db/databases";
import type { StoredJob } from "../../db/jobs";
import { liveStoredJobsNamed, managedStoredJobsInRange } from "../../db/schedule-file-jobs";
import { checkJobInput } from "../job-writes";
import { targetPolicyOf } from "../private-targets";
import { targetBindingAccess } from "../target-bindings";
import { emptyCounts } from "./calendar-entries";

export interface JobActions {
  creates: { index: number; spec: JobSpec; paused: boolean }[];
  /** A new spec (null: the same), a new status (null: the same), or both, in one new version. */
  updates: { index: number; job: StoredJob; spec: JobSpec | null; status: "ACTIVE" | "PAUSED" | null }[];
  deletes: StoredJob[];
}

export interface JobPlan {
  entries: JobPlanEntry[];
  counts: PlanCounts;
  notes: PlanNote[];
  errors: FieldError[];
  conflicts: FieldError[];
  actions: JobActions;
}

type Existing = ExistingJob & { stored: StoredJob };

function existingOf(job: StoredJob): Existing {
  return {
    id: job.id,
    name: job.spec.name,
    managedBy: job.spec.managed_by ?? null,
    status: job.status,
    createdAtMs: job.createdAtMs,
    qstash: job.spec.qstash !== undefined,
    stored: job,
  };
}

interface Checker {
  check(input: unknown, index: number, rejectPastOnce: boolean): { spec: JobSpec } | { errors: FieldError[] };
  /** Whether every calendar the spec names exists once the file is applied. */
  knowsCalendars(spec: JobSpec): boolean;
}

/** checkJobInput with what every job of the request shares: the tenant's calendars, policy, budget. */
function checkerFor(
  env: Env,
  tenantId: string,
  calendars: ReadonlyMap<string, ExclusionSet>,
  nowMs: number,
): Checker {
  const searchAllowance: SearchAllowance = { remainingUnits: BATCH_SEARCH_UNITS };
  const shared = { targetPolicy: targetPolicyOf(env), targets: targetBindingAccess(env, tenantId) };
  return {
    check(input, index, rejectPastOnce) {
      const result = checkJobInput(input, nowMs, ["jobs", index], {
        ...shared,
        searchAllowance,
        calendars,
        rejectPastOnce,
      });
      return result.ok ? { spec: result.spec } : { errors: result.errors };
    },
    knowsCalendars: (spec) => (spec.calendars ?? []).every((name) => calendars.has(name)),
  };
}

/** What apply does to the request's jobs, against the tenant's jobs as stored now. */
export async function planJobs(
  env: Env,
  tenantId: string,
  request: FileRequest,
  checked: CheckedItems<FileJobItem>,
  calendars: ReadonlyMap<string, ExclusionSet>,
  nowMs: number,
): Promise<JobPlan> {
  const stores = jobStores(env);
  const range = request.scope.names;
  const [named, managed] = await Promise.all([
    liveStoredJobsNamed(
      stores,
      tenantId,
      checked.items.map((item) => item.name),
    ),
    range === null ? [] : managedStoredJobsInRange(stores, tenantId, request.managed_by, range),
  ]);
  const byName = new Map<string, Existing[]>();
  for (const job of named.map(existingOf)) byName.set(job.name, [...(byName.get(job.name) ?? []), job]);
  const plan: JobPlan = {
    entries: [],
    counts: emptyCounts(),
    notes: [],
    errors: [...checked.errors],
    conflicts: [],
    actions: { creates: [], updates: [], deletes: [] },
  };
  const checker = checkerFor(env, tenantId, calendars, nowMs);
  for (const refused of checked.refused) {
    const result = checker.check(refused.input, refused.index, true);
    if ("errors" in result) plan.errors.push(...result.errors);
  }
  const matchedIds = new Set<string>();
  for (const item of checked.items) {
    const match = matchJob(byName.get(item.name) ?? [], request.managed_by, request.adopt);
    if (match.kind === "conflict") {
      plan.conflicts.push({ path: joinPath(["jobs", item.index, "name"]), message: match.message });
    } else if (match.kind === "new") {
      planCreate(plan, item, checker);
    } else {
      matchedIds.add(match.existing.id);
      planChange(plan, item, match.existing.stored, match.kind === "adopt", checker);
    }
  }
  if (range !== null) {
    const fileNames = new Set(checked.items.map((item) => item.name));
    const prunable = prunableJobs(managed.map(existingOf), matchedIds, fileNames, range);
    for (const { job, reason } of prunable) planPrune(plan, job.stored, reason, request);
  }
  return plan;
}

function planCreate(plan: JobPlan, item: FileJobItem, checker: Checker): void {
  const result = checker.check(item.input, item.index, true);
  if ("errors" in result) {
    plan.errors.push(...result.errors);
    return;
  }
  const paused = item.paused === true;
  plan.entries.push({ action: "create", index: item.index, name: item.name, paused });
  plan.counts.create++;
  plan.actions.creates.push({ index: item.index, spec: result.spec, paused });
}

/**
 * The file's spec for a job that exists: equal to the stored one on the cheap path (no create
 * checks, which a job left alone does not need: a one-shot long fired would fail them), else the
 * create's checks decide it. A one-shot in the past is refused only where the file moves it.
 */
function desiredSpec(
  item: FileJobItem,
  stored: JobSpec,
  before: JobSpec,
  checker: Checker,
): { spec: JobSpec } | { errors: FieldError[] } {
  const input = withStoredAnchors(item.input, stored);
  const parsed = jobCreateSchema.safeParse(input);
  const cheap = parsed.success ? comparableSpec(parsed.data) : null;
  if (cheap !== null && sameJson(cheap, before) && checker.knowsCalendars(before)) return { spec: before };
  const movesSchedule = cheap === null || !sameJson(schedulesOf(cheap), schedulesOf(before));
  return checker.check(input, item.index, movesSchedule);
}

function planChange(
  plan: JobPlan,
  item: FileJobItem,
  job: StoredJob,
  adopt: boolean,
  checker: Checker,
): void {
  const before = storedComparable(job.spec);
  const desired = desiredSpec(item, job.spec, before, checker);
  if ("errors" in desired) {
    plan.errors.push(...desired.errors);
    return;
  }
  const status = desiredStatus(job.status, item.paused);
  const changes: FieldChange[] = hideSecrets(diffJson(before, desired.spec));
  if (status !== null)
    changes.push({ path: "paused", before: status === "ACTIVE", after: status === "PAUSED" });
  if (job.status === "PAUSED" && item.paused === undefined) {
    plan.notes.push({
      name: item.name,
      id: job.id,
      message: "PAUSED outside the file, which does not say `paused`: apply leaves it paused",
    });
  }
  if (changes.length === 0) {
    plan.counts.unchanged++;
    return;
  }
  const action = adopt ? "adopt" : "update";
  plan.entries.push({ action, index: item.index, name: item.name, id: job.id, changes });
  plan.counts[action]++;
  const spec = sameJson(desired.spec, before) ? null : desired.spec;
  plan.actions.updates.push({ index: item.index, job, spec, status });
}

function planPrune(plan: JobPlan, job: StoredJob, reason: "not_in_file" | "duplicate", request: FileRequest) {
  if (!request.prune) {
    const why = reason === "duplicate" ? "a second job of a name the file holds" : "not in the file";
    plan.notes.push({
      name: job.spec.name,
      id: job.id,
      message: `managed by ${JSON.stringify(request.managed_by)} and ${why}: --prune deletes it`,
    });
    return;
  }
  plan.entries.push({ action: "delete", name: job.spec.name, id: job.id, reason });
  plan.counts.delete++;
  plan.actions.deletes.push(job);
}
