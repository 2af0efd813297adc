// jobs.list and jobs.read: a tenant's jobs newest first across every job database, and the
// calendars their specs name (next fire times skip what a calendar excludes).
import type { ExclusionSet } from "../../core/schedules/exclusions";
import { calendarSetsFor } from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { listStoredJobs } from "../../db/job-store";
import type { JobListFilter, StoredJob } from "../../db/jobs";

/** At most `filter.limit` jobs, newest first, older than `filter.beforeId` when given. */
export function listTenantJobs(env: Env, tenantId: string, filter: JobListFilter): Promise<StoredJob[]> {
  return listStoredJobs(jobStores(env), tenantId, filter);
}

/** The tenant's calendars the specs name, by name (one read; none when no spec names one). */
export function calendarsOfJobs(
  env: Env,
  tenantId: string,
  specs: readonly ({ calendars?: readonly string[] | undefined } | null | undefined)[],
): Promise<Map<string, ExclusionSet>> {
  return calendarSetsFor(env.DB, tenantId, specs);
}
