// Jobs due a few seconds from now, whose runs the shards send ahead of their instant, and what the
// dispatch-ahead tests read of them.
import { expect, vi } from "vitest";
import type { JobCreate } from "../../src/core/jobs/job-spec";
import type { ShardJob } from "../../src/shard/protocol";
import { historyOf, shardRows, snapshot, spec, targetUrl, uniqueJobId, WAIT } from "./scheduling";

export interface AheadJob {
  jobId: string;
  atMs: number;
  path: string;
  job: ShardJob;
}

/** A one-shot job due `inMs` from now (whole seconds: the instant has no sub-second part). */
export function aheadJob(label: string, inMs: number, extra: Partial<JobCreate> = {}): AheadJob {
  const jobId = uniqueJobId(label);
  const atMs = Math.ceil((Date.now() + inMs) / 1000) * 1000;
  const path = `/ok/ahead/${jobId}`;
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(atMs).toISOString() },
    target: { url: targetUrl(path), method: "POST" },
    ...extra,
  });
  return { jobId, atMs, path, job: snapshot(jobId, jobSpec) };
}

export interface ShardRun {
  run_id: string;
  state: string;
  fence: number | null;
  job_version: number;
}

/** The job's runs in its shard: live ones, and settled ones that did not succeed (a day). */
export async function shardRunsOf(jobId: string): Promise<ShardRun[]> {
  return shardRows<ShardRun>(
    jobId,
    "SELECT run_id, state, fence, job_version FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
    jobId,
  );
}

/** Waits until the job's run is on the queue ahead of its instant (and checks it is still ahead). */
export async function waitQueuedAhead({ jobId, atMs }: AheadJob): Promise<ShardRun> {
  const run = await vi.waitFor(async () => {
    const [row] = await shardRunsOf(jobId);
    expect(row?.state).toBe("DISPATCHED");
    return row as ShardRun;
  }, WAIT);
  // The test is only meaningful while the instant is still to come.
  expect(Date.now()).toBeLessThan(atMs);
  return run;
}

export async function waitSucceeded(jobId: string) {
  return vi.waitFor(async () => {
    const [run] = await historyOf(jobId);
    expect(run?.state).toBe("SUCCEEDED");
    return run!;
  }, WAIT);
}
