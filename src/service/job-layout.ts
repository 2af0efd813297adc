// The layout migration of an older single-database deployment, as the operator asks for it: the
// next batch of jobs moved out of the control database's own `jobs` table into their job
// databases, whatever LEGACY_JOBS says (src/db/job-layout.ts says why it is idempotent and
// resumable). The maintenance pass moves a batch each time while LEGACY_JOBS is "read".
import { jobStores } from "../db/databases";
import { LAYOUT_MOVE_BATCH, type LayoutMoveResult, moveLegacyJobs } from "../db/job-layout";
import { logEvent } from "../log";

export { LAYOUT_MOVE_BATCH };

export async function moveLegacyJobBatch(env: Env, limit: number): Promise<LayoutMoveResult> {
  const result = await moveLegacyJobs(jobStores(env), { limit }, env.DB);
  logEvent("layout.jobs_moved", { ...result });
  return result;
}
