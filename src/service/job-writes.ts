import { EdgecronError, type FieldError } from "../core/common/errors";
import { fieldErrorsOf, joinPath, validationError } from "../core/common/field-errors";
import { impliedEndMs } from "../core/jobs/job-end";
import {
  type JobSpec,
  jobCreateSchema,
  type Schedule,
  validJobFields,
  validTargetUrl,
} from "../core/jobs/job-spec";
import { jobSpecIssues, normalizeJobSpec, scheduleElementIssues } from "../core/jobs/normalize";
import { missingScheduleIssues } from "../core/jobs/schedule-set-check";
import { backfillInstants, MAX_BACKFILL_INSTANTS } from "../core/schedules/backfill";
import type { ExclusionSet } from "../core/schedules/exclusions";
import type { SearchAllowance } from "../core/schedules/schedule-check";
import { schedulesOf } from "../core/schedules/schedule-set";
import { targetAddressProblem } from "../core/targets/ssrf";
import type { TargetPolicy } from "../core/targets/target-policy";
import { jobDatabaseIndex, jobStores } from "../db/databases";
import { updateStoredJobVersion } from "../db/job-store";
import type { StoredJob } from "../db/jobs";
import { logEvent } from "../log";
import { shardOfJob } from "../shard/client";
import { newId } from "./ids";
import { syncJobsOnce } from "./job-push";
import { bindingTargetErrors, type TargetBindingAccess } from "./target-bindings";

export type SpecCheck = { ok: true; spec: JobSpec } | { ok: false; errors: FieldError[] };

/**
 * The SSRF policy (src/core/targets/ssrf.ts) on every URL a job makes us call, so a job the consumer
 * would refuse at call time is refused at create instead, where the user can fix it. Runs on
 * each URL that is valid on its own, whatever else in the body is wrong.
 */
function targetUrlErrors(
  input: unknown,
  fields: Partial<JobSpec>,
  targetPolicy: TargetPolicy,
  prefix: (string | number)[],
): FieldError[] {
  const urls: [string, string | null][] = [
    ["target.url", validTargetUrl(input)],
    ["on_failure", fields.on_failure ?? null],
    ["qstash.callback", fields.qstash?.callback ?? null],
    ["qstash.failure_callback", fields.qstash?.failure_callback ?? null],
  ];
  const errors: FieldError[] = [];
  for (const [path, url] of urls) {
    const problem = url === null ? null : targetAddressProblem(url, targetPolicy);
    if (problem !== null) errors.push({ path: joinPath([...prefix, path]), message: problem });
  }
  return errors;
}

/**
 * jobCreateSchema, the SSRF policy and the checks that need `now` or several fields, each on
 * what is valid on its own, so one answer names every bad field; every path under `prefix`.
 */
export function checkJobInput(
  input: unknown,
  nowMs: number,
  prefix: (string | number)[],
  options: {
    rejectPastOnce?: boolean;
    /** What targets may be called (src/service/private-targets.ts). */
    targetPolicy: TargetPolicy;
    searchAllowance?: SearchAllowance;
    /** The tenant's calendars: names in `calendars` must exist (see calendarSetsFor). */
    calendars?: ReadonlyMap<string, ExclusionSet>;
    /** The caller's binding targets (src/service/target-bindings.ts); unset: none allowed. */
    targets?: TargetBindingAccess;
  },
): SpecCheck {
  const parsed = jobCreateSchema.safeParse(input);
  // What is valid on its own, field by field, is read only when the whole did not parse: it
  // parses every field again (three times over, once per URL, it was a tenth of a create's CPU).
  const fields = parsed.success ? parsed.data : validJobFields(input);
  const errors = parsed.success ? [] : fieldErrorsOf(parsed.error.issues, prefix);
  errors.push(...prefixed(missingScheduleIssues(input), prefix));
  errors.push(...targetUrlErrors(input, fields, options.targetPolicy, prefix));
  errors.push(...bindingTargetErrors(input, options.targets, prefix));
  if (parsed.success && errors.length === 0) {
    const normalized = normalizeJobSpec(parsed.data, nowMs, options);
    if (normalized.ok) return { ok: true, spec: normalized.spec };
    return { ok: false, errors: prefixed(normalized.issues, prefix) };
  }
  errors.push(...prefixed(jobSpecIssues(fields, nowMs, options), prefix));
  if (fields.schedules === undefined && typeof input === "object" && input !== null) {
    const raw = (input as Record<string, unknown>).schedules;
    errors.push(...prefixed(scheduleElementIssues(raw, fields.misfire, nowMs, options), prefix));
  }
  return { ok: false, errors };
}

function prefixed(issues: readonly FieldError[], prefix: (string | number)[]): FieldError[] {
  return issues.map((issue) => ({ path: joinPath([...prefix, issue.path]), message: issue.message }));
}

/**
 * The job database new jobs of one request go to. Keyed creates go where the key hashes (the
 * batch's key for its items, whose keys are `key\nindex`), so a retry or a concurrent twin meets
 * the first attempt in one database, whose unique index lets exactly one in; unkeyed ones go
 * anywhere. One database per request keeps a batch one transaction.
 */
export function databaseForCreate(env: Env, tenantId: string, idempotencyKey: string | null): number {
  const count = jobStores(env).homes.length;
  if (idempotencyKey === null) return (crypto.getRandomValues(new Uint32Array(1))[0] ?? 0) % count;
  const requestKey = idempotencyKey.split("\n")[0] ?? idempotencyKey;
  return jobDatabaseIndex(`${tenantId}\n${requestKey}`, count);
}

/** A new job id that hashes to job database `databaseIndex` (on average JOB_DATABASES tries). */
function newJobIdIn(env: Env, databaseIndex: number, nowMs: number): string {
  const count = jobStores(env).homes.length;
  for (;;) {
    const id = newId("job", nowMs);
    if (jobDatabaseIndex(id, count) === databaseIndex) return id;
  }
}

export function newStoredJob(
  env: Env,
  tenantId: string,
  spec: JobSpec,
  nowMs: number,
  idempotency: { key: string; requestHash: string } | null = null,
  databaseIndex = databaseForCreate(env, tenantId, idempotency?.key ?? null),
): StoredJob {
  const id = newJobIdIn(env, databaseIndex, nowMs);
  return {
    id,
    tenantId,
    spec,
    status: "ACTIVE",
    version: 1,
    shard: shardOfJob(env, id),
    syncedVersion: 0,
    idempotencyKey: idempotency?.key ?? null,
    requestHash: idempotency?.requestHash ?? null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    endsAtMs: impliedEndMs(spec),
  };
}

/**
 * Background re-sends of jobs a shard did not confirm, before the outbox sweep's turn (15 s
 * locally, the Cron Trigger in production): an overloaded shard refuses or times out an RPC now
 * and then, and a pause or a delete must not wait a maintenance interval for it.
 */
const PUSH_RETRY_DELAYS_MS = [250, 1_000, 4_000];

export interface PushOptions {
  /**
   * The request's `waitUntil`: the push (and its re-sends) outlive a client that stops waiting.
   * Without it a client that gave up (a timeout under load) cancelled the push after D1 had
   * recorded the change, leaving it to the sweep.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * Sends the jobs to their shards in one pushJobs call and marks what was confirmed. Never fails
 * the request: unconfirmed rows keep synced_version < version, are re-sent in the background
 * (with `waitUntil`) and, failing that, by the outbox sweep.
 */
export async function syncJobs(
  env: Env,
  jobs: readonly StoredJob[],
  options: PushOptions = {},
): Promise<void> {
  if (jobs.length === 0) return;
  const firstPush = pushOnce(env, jobs);
  const { waitUntil } = options;
  if (waitUntil) waitUntil(firstPush.then((unconfirmed) => pushAgainLater(env, unconfirmed)));
  await firstPush;
  for (const job of jobs) {
    logEvent(job.version === 1 ? "job.created" : "job.updated", {
      tenant_id: job.tenantId,
      job_id: job.id,
      version: job.version,
      status: job.status,
      shard: job.shard,
      schedule_type: schedulesOf(job.spec)
        .map((schedule) => schedule.type)
        .join(","),
      synced: job.syncedVersion === job.version,
    });
  }
}

/** One push; returns the jobs no shard confirmed. */
async function pushOnce(env: Env, jobs: readonly StoredJob[]): Promise<StoredJob[]> {
  try {
    await syncJobsOnce(env, jobs);
  } catch (error) {
    logEvent("job.push_failed", {
      jobs: jobs.length,
      error,
      note: "re-sent shortly, then by the outbox sweep",
    });
  }
  return jobs.filter((job) => job.syncedVersion < job.version);
}

async function pushAgainLater(env: Env, unconfirmed: StoredJob[]): Promise<void> {
  let left = unconfirmed;
  for (const delayMs of PUSH_RETRY_DELAYS_MS) {
    if (left.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    left = await pushOnce(env, left);
  }
  if (left.length > 0) logEvent("job.push_failed", { jobs: left.length, note: "left to the outbox sweep" });
}

/**
 * Writes the next version of a job (optimistic: 409 `version_conflict` if another write got
 * there first), then pushes it.
 */
export async function saveJobVersion(
  env: Env,
  job: StoredJob,
  change: JobChange,
  nowMs: number,
  options: PushOptions = {},
): Promise<StoredJob> {
  const next = await writeJobVersion(env, job, change, nowMs);
  await syncJobs(env, [next], options);
  return next;
}

export type JobChange = { spec?: JobSpec; status?: StoredJob["status"] };

/** The D1 half of saveJobVersion: the next version written, not pushed. */
export async function writeJobVersion(
  env: Env,
  job: StoredJob,
  change: JobChange,
  nowMs: number,
): Promise<StoredJob> {
  const spec = change.spec ?? job.spec;
  const next: StoredJob = {
    ...job,
    spec,
    status: change.status ?? job.status,
    version: job.version + 1,
    updatedAtMs: nowMs,
    endsAtMs: impliedEndMs(spec),
  };
  if (!(await updateStoredJobVersion(jobStores(env), next, job.version))) {
    throw new EdgecronError(
      "version_conflict",
      `Job ${job.id} was changed by another request; read it and retry`,
    );
  }
  return next;
}

/**
 * A backfill range the shard may run, or a 400 naming every bad bound: `to` must be after `from`,
 * neither may be in the future (a backfill covers past instants only; running a future one would
 * take the key the real schedule fires under), and the range may hold at most
 * MAX_BACKFILL_INSTANTS instants. Refused rather than clamped: the caller learns the range was
 * not what it asked, and nothing runs.
 */
export function checkBackfillRange(
  schedule: readonly Schedule[],
  range: { from: string; to: string },
  nowMs: number,
): { fromMs: number; toMs: number; instants: number[] } {
  const fromMs = Date.parse(range.from);
  const toMs = Date.parse(range.to);
  const now = new Date(nowMs).toISOString();
  const errors: FieldError[] = [];
  if (fromMs > nowMs) errors.push({ path: "from", message: `must not be in the future (now is ${now})` });
  if (toMs <= fromMs) errors.push({ path: "to", message: "must be after from" });
  else if (toMs > nowMs) {
    errors.push({
      path: "to",
      message: `must not be in the future (now is ${now}): a backfill runs past instants only; the schedule fires the rest`,
    });
  }
  if (errors.length > 0) throw validationError(errors);
  // Count first: more than the cap is refused before any run exists.
  const instants = backfillInstants(schedule, fromMs, toMs, nowMs);
  if (instants.length > MAX_BACKFILL_INSTANTS) {
    // Its own code, as the catalogue says: a caller splits the range rather than fixing a field.
    throw new EdgecronError(
      "too_many_instants",
      `The range holds more than ${MAX_BACKFILL_INSTANTS} instants: split it into shorter ones`,
      { errors: [{ path: "to", message: `the range holds more than ${MAX_BACKFILL_INSTANTS} instants` }] },
    );
  }
  return { fromMs, toMs, instants };
}
