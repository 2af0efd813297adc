// Tests that read or write job rows directly go to the job's own database, as the Worker does.
import { env } from "cloudflare:test";
import { allJobSources, homeOf, jobStores } from "../../src/db/databases";

/** The D1 database (DB_JOBS_n) that holds this job's row. */
export function jobsDb(jobId: string): D1Database {
  return homeOf(jobStores(env), jobId);
}

/** Sum of `SELECT COUNT(*) AS n FROM jobs ...` over every job database. */
export async function countJobs(whereSql = "", ...values: (string | number)[]): Promise<number> {
  const counts = await Promise.all(
    allJobSources(jobStores(env)).map(async (db) => {
      const row = await db
        .prepare(`SELECT COUNT(*) AS n FROM jobs ${whereSql}`)
        .bind(...values)
        .first<{ n: number }>();
      return row?.n ?? 0;
    }),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}
