// The stats of GET /v1/stats: job counts from the job databases, run counts and lateness from the
// shards' history aggregates, for one tenant or (null) every tenant together.
import type { JobStatus } from "../core/runs/run-state";
import { jobStores } from "../db/databases";
import { jobsByStatus } from "../db/job-lookups";
import { type RunStats, runStats } from "./run-stats";
import { callShard } from "./shard-calls";

export interface Stats {
  jobsByStatus: Record<JobStatus, number>;
  runs: RunStats;
}

/** 503 `shard_unavailable` when a shard cannot be read. */
export async function readStats(env: Env, tenantId: string | null, nowMs: number): Promise<Stats> {
  const [jobs, runs] = await Promise.all([
    jobsByStatus(jobStores(env), tenantId),
    callShard("read the run stats", () => runStats(env, tenantId, nowMs)),
  ]);
  return { jobsByStatus: jobs, runs };
}
