// The names of a tenant's jobs by id, for the pages that list runs, alerts and dead letters: one
// read however many databases the jobs live in. Ids the tenant does not own are left out.
import { jobStores } from "../../db/databases";
import { jobNamesByIds } from "../../db/job-lookups";

export function jobNamesOf(
  env: Env,
  tenantId: string,
  jobIds: readonly string[],
): Promise<Map<string, string>> {
  return jobNamesByIds(jobStores(env), tenantId, jobIds);
}
