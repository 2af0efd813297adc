import type { Context } from "hono";
import { requireOwnId } from "../../service/ids";
import { findTenantJob, jobNotFound } from "../../service/jobs/find-job";
import type { StoredJob } from "../../service/jobs/stored-job";
import type { AppEnv } from "../http/app-env";

/** The job id named by `:id`; a malformed one is 404. */
export function jobIdOf(c: Context<AppEnv>): string {
  return requireOwnId(c.req.param("id"), "job", jobNotFound);
}

/** The job named by `:id`, in the caller's tenant; anything else (malformed, other tenant) is 404. */
export async function loadJob(c: Context<AppEnv>): Promise<StoredJob> {
  return findTenantJob(c.env, c.get("tenantId"), jobIdOf(c));
}
