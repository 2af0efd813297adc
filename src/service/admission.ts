// Admission at create: a suspended tenant is refused with 409 `tenant_suspended` (./suspension.ts);
// a tenant over its active-jobs or creates-per-second limit is refused with 429
// `tenant_limit_exceeded` before anything is stored. Every path that creates jobs (the v1
// create and batch routes, and any other API built on the same engine) calls admitJobCreates
// after validating and before inserting.
import { EdgecronError } from "../core/common/errors";
import { defaultTenantLimits, type TenantLimitName, type TenantLimits } from "../core/load/tenant-limits";
import { jobStores } from "../db/databases";
import { countActiveJobs, loadTenantLimits, takeCreateSlots } from "../db/tenant-limits";
import { refuseWhileSuspended } from "./suspension";

/** Active jobs free up only when the tenant deletes some: tell it to come back in a minute. */
const ACTIVE_JOBS_RETRY_AFTER_S = 60;
const CREATE_RATE_RETRY_AFTER_S = 1;

/** The deployment's default limits, from its TENANT_* vars. */
export function tenantLimitDefaults(env: Env): TenantLimits {
  return defaultTenantLimits(env as unknown as Record<string, unknown>);
}

function limitExceeded(limit: TenantLimitName, detail: string, retryAfterSeconds: number): EdgecronError {
  return new EdgecronError("tenant_limit_exceeded", detail, {
    errors: [{ path: `limits.${limit}`, message: detail }],
    retryAfterSeconds,
  });
}

/**
 * Lets `count` new jobs of the tenant in, or throws 429 naming the limit. The active-jobs count is
 * read before the insert, so two creates racing for the last slot may both pass (it bounds a
 * tenant's size, not an exact quota); the creates-per-second window is counted atomically.
 */
export async function admitJobCreates(
  env: Env,
  tenantId: string,
  count: number,
  nowMs: number,
): Promise<void> {
  if (count === 0) return;
  await refuseWhileSuspended(env, tenantId, "create jobs or publish messages");
  const { limits } = await loadTenantLimits(env.DB, tenantId, tenantLimitDefaults(env));
  const perSecond = limits.creates_per_second;
  if (perSecond !== null && count > perSecond) {
    throw limitExceeded(
      "creates_per_second",
      `${count} jobs in one request is more than this tenant's creates_per_second limit (${perSecond}): send smaller batches`,
      CREATE_RATE_RETRY_AFTER_S,
    );
  }
  const maxActive = limits.active_jobs;
  if (maxActive !== null) {
    const active = await countActiveJobs(jobStores(env), tenantId);
    if (active + count > maxActive) {
      throw limitExceeded(
        "active_jobs",
        `This tenant has ${active} active or paused jobs; ${count} more would pass its active_jobs limit (${maxActive}): delete jobs first`,
        ACTIVE_JOBS_RETRY_AFTER_S,
      );
    }
  }
  if (perSecond !== null && !(await takeCreateSlots(env.DB, tenantId, count, perSecond, nowMs))) {
    throw limitExceeded(
      "creates_per_second",
      `This tenant created its ${perSecond} jobs for this second (creates_per_second limit): retry in a second`,
      CREATE_RATE_RETRY_AFTER_S,
    );
  }
}
