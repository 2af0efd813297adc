// What returning or renewing a run's flow-control permits needs of it and of its job, captured
// while the run is still at hand (a run that ended leaves memory at the next commit).

import type { Run } from "../records/run";
import type { JobRecord } from "../state/job-book";

export type PermitRun = Pick<Run, "run_id" | "job_id" | "tenant_id" | "due_at_ms">;

export interface PermitRows {
  runs: Map<string, PermitRun>;
  jobs: Map<string, JobRecord>;
}
