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

/** The job named by `:id`, in the caller's tenant; anything else (malformed, other tenant) is 404. */
export async function loadJob(c: Context<AppEnv>): Promise<StoredJob> {
  const id = requireOwnId(c.req.param("id"), "job", jobNotFound);
  const job = await findStoredJob(jobStores(c.env), c.get("tenantId"), id);
  if (job === null) throw jobNotFound(id);
  return job;
}
