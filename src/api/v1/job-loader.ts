import type { Context } from "hono";
import { jobStores } from "../../db/databases";
import { findStoredJob } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";
import { requireOwnId } from "../../service/ids";
import type { AppEnv } from "../http/app-env";
import { EdgecronError } from "../http/problem";

export function jobNotFound(id?: string): EdgecronError {
  return new EdgecronError("job_not_found", id === undefined ? "No such job" : `No job ${id}`);
}

/** The job id named by `:id`; a malformed one is 404. */
export function jobIdOf(c: Context<AppEnv>): string {
  return requireOwnId(c.req.param("id"), "job", jobNotFound);
}

/** The job named by `:id`, in the caller's tenant; anything else (malformed, other tenant) is 404. */
export async function loadJob(c: Context<AppEnv>): Promise<StoredJob> {
  const id = jobIdOf(c);
  const job = await findStoredJob(jobStores(c.env), c.get("tenantId"), id);
  if (job === null) throw jobNotFound(id);
  return job;
}
