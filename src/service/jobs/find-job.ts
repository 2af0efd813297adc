// A job as its tenant may see it: one read for every door that names a job by id.
import { EdgecronError } from "../../core/common/errors";
import { jobStores } from "../../db/databases";
import { findStoredJob } from "../../db/job-store";
import type { StoredJob } from "../../db/jobs";

export function jobNotFound(id?: string): EdgecronError {
  return new EdgecronError("job_not_found", id === undefined ? "No such job" : `No job ${id}`);
}

/** The tenant's job `jobId`; a job of another tenant is as unknown as a missing one (404). */
export async function findTenantJob(env: Env, tenantId: string, jobId: string): Promise<StoredJob> {
  const job = await findStoredJob(jobStores(env), tenantId, jobId);
  if (job === null) throw jobNotFound(jobId);
  return job;
}
