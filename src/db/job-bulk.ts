// D1 for bulk control (POST /v1/jobs/bulk): a tenant's jobs listed whole, and many new versions
// written in one D1 batch per database instead of one round trip per job.
import { groupByHome, type JobStores } from "./databases";
import { listStoredJobs } from "./job-store";
import { jobVersionUpdate } from "./job-versions";
import type { JobListFilter, StoredJob } from "./jobs";

const PAGE = 1_000;

/** The tenant's jobs matching the list filter, newest first, up to `limit` (paged by id). */
export async function listTenantJobs(
  stores: JobStores,
  tenantId: string,
  filter: Omit<JobListFilter, "beforeId" | "limit">,
  limit: number,
): Promise<StoredJob[]> {
  const jobs: StoredJob[] = [];
  let beforeId: string | undefined;
  while (jobs.length < limit) {
    const page = await listStoredJobs(stores, tenantId, {
      ...filter,
      limit: Math.min(PAGE, limit - jobs.length),
      ...(beforeId === undefined ? {} : { beforeId }),
    });
    jobs.push(...page);
    if (page.length < PAGE) break;
    beforeId = page[page.length - 1]?.id;
  }
  return jobs;
}

/**
 * Writes each job's next version if its row is still at `version - 1` (the optimistic check of
 * a single write). Returns the ids written; a job another request changed meanwhile is left out.
 */
export async function updateStoredJobVersions(
  stores: JobStores,
  jobs: readonly StoredJob[],
): Promise<Set<string>> {
  const written = new Set<string>();
  await Promise.all(
    groupByHome(stores, jobs, (job) => job.id).map(async ({ db, items }) => {
      const results = await db.batch(items.map((job) => jobVersionUpdate(db, job, job.version - 1)));
      results.forEach((result, index) => {
        if (result.meta.changes > 0) written.add((items[index] as StoredJob).id);
      });
    }),
  );
  return written;
}
