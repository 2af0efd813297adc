import { type JobSpec, jobCreateSchema } from "../core/job-spec";
import { logEvent } from "../log";
import { normalizeJobSpec } from "../core/normalize";
import { targetAddressProblem } from "../core/ssrf";
import { markJobsSynced, type StoredJob, specJsonOf, updateJobVersion } from "../db/jobs";
import type { ShardJob } from "../shard/protocol";
import { pushJobs, shardOfJob } from "../shard/client";
import { newId } from "./ids";
import { EdgecronError, type FieldError, fieldErrorsOf, joinPath } from "./problem";

export type SpecCheck = { ok: true; spec: JobSpec } | { ok: false; errors: FieldError[] };

/** `ALLOW_PRIVATE_TARGETS` is a local-development switch: anything but "true" is production. */
export function allowsPrivateTargets(env: Env): boolean {
  return env.ALLOW_PRIVATE_TARGETS === "true";
}

/**
 * The SSRF policy (src/core/ssrf.ts) on every URL a job makes us call, so a job the consumer
 * would refuse at call time is refused at create instead, where the user can fix it.
 */
function targetUrlErrors(spec: JobSpec, allowPrivate: boolean, prefix: (string | number)[]): FieldError[] {
  const urls: [string, string | null][] = [
    ["target.url", spec.target.url],
    ["on_failure", spec.on_failure],
  ];
  const errors: FieldError[] = [];
  for (const [path, url] of urls) {
    const problem = url === null ? null : targetAddressProblem(url, { allowPrivate });
    if (problem !== null) errors.push({ path: joinPath([...prefix, path]), message: problem });
  }
  return errors;
}

/**
 * jobCreateSchema, the SSRF policy, then the checks that need `now`; every issue with its path
 * under `prefix`.
 */
export function checkJobInput(
  input: unknown,
  nowMs: number,
  prefix: (string | number)[],
  options: { rejectPastOnce?: boolean; allowPrivate: boolean },
): SpecCheck {
  const parsed = jobCreateSchema.safeParse(input);
  if (!parsed.success) return { ok: false, errors: fieldErrorsOf(parsed.error.issues, prefix) };
  const addressErrors = targetUrlErrors(parsed.data, options.allowPrivate, prefix);
  if (addressErrors.length > 0) return { ok: false, errors: addressErrors };
  const normalized = normalizeJobSpec(parsed.data, nowMs, options);
  if (!normalized.ok) {
    const head = prefix.map(String).join(".");
    const errors = normalized.issues.map((issue) => ({
      path: head === "" ? issue.path : `${head}.${issue.path}`,
      message: issue.message,
    }));
    return { ok: false, errors };
  }
  return { ok: true, spec: normalized.spec };
}

export function newStoredJob(
  env: Env,
  tenantId: string,
  spec: JobSpec,
  nowMs: number,
  idempotency: { key: string; requestHash: string } | null = null,
): StoredJob {
  const id = newId("job", nowMs);
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
  };
}

export function toShardJob(job: StoredJob): ShardJob {
  return {
    jobId: job.id,
    tenantId: job.tenantId,
    version: job.version,
    status: job.status,
    specJson: specJsonOf(job.spec),
    createdAtMs: job.createdAtMs,
  };
}

/**
 * Sends the jobs to their shards in one pushJobs call and marks what was confirmed. Never fails
 * the request: unconfirmed rows keep synced_version < version and the outbox sweep re-sends them.
 */
export async function pushAndMarkSynced(env: Env, jobs: readonly StoredJob[]): Promise<void> {
  if (jobs.length === 0) return;
  try {
    const confirmed = await pushJobs(env, jobs.map(toShardJob));
    const synced = jobs.filter((job) => confirmed.has(job.id));
    await markJobsSynced(env.DB, synced);
    for (const job of synced) job.syncedVersion = job.version;
  } catch (error) {
    logEvent("job.push_failed", { jobs: jobs.length, error, note: "the outbox sweep will re-send" });
  }
  for (const job of jobs) {
    logEvent(job.version === 1 ? "job.created" : "job.updated", {
      tenant_id: job.tenantId,
      job_id: job.id,
      version: job.version,
      status: job.status,
      shard: job.shard,
      schedule_type: job.spec.schedule.type,
      synced: job.syncedVersion === job.version,
    });
  }
}

/**
 * Writes the next version of a job (optimistic: 409 `version_conflict` if another write got
 * there first), then pushes it.
 */
export async function saveJobVersion(
  env: Env,
  job: StoredJob,
  change: { spec?: JobSpec; status?: StoredJob["status"] },
  nowMs: number,
): Promise<StoredJob> {
  const next: StoredJob = {
    ...job,
    spec: change.spec ?? job.spec,
    status: change.status ?? job.status,
    version: job.version + 1,
    updatedAtMs: nowMs,
  };
  if (!(await updateJobVersion(env.DB, next, job.version))) {
    throw new EdgecronError(
      "version_conflict",
      `Job ${job.id} was changed by another request; read it and retry`,
    );
  }
  await pushAndMarkSynced(env, [next]);
  return next;
}
