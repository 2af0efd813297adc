// A run whose attempt succeeds settles straight into its history record and leaves `runs`
// (durable-objects/shard/runs/settle.ts). Its (job, instant) stays taken: nothing runs it again,
// and a message of it delivered again is refused as before.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { freeTriggerInstant } from "../../durable-objects/shard/runs/trigger-instants";
import { shardOfJob } from "../../src/shard/client";
import type { ClaimRequest, ClaimResult, OutcomeReport, OutcomeResult } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  dispatchButLose,
  historyOf,
  makeJobDue,
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  statesOf,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
} from "../helpers/scheduling";
import { withShardState } from "../helpers/shard-state";

disarmShardsAfterEach();

interface LiveRun {
  run_id: string;
  fence: number;
  scheduled_at_ms: number;
}

const liveRunsOf = (jobId: string) =>
  shardRows<LiveRun>(jobId, "SELECT run_id, fence, scheduled_at_ms FROM runs WHERE job_id = ?", jobId);

function claim(jobId: string, claims: ClaimRequest[]): Promise<ClaimResult[]> {
  return stubFor(jobId).claimRuns(shardOfJob(env, jobId), claims);
}

function report(jobId: string, reports: OutcomeReport[]): Promise<OutcomeResult[]> {
  return stubFor(jobId).reportOutcomes(shardOfJob(env, jobId), reports);
}

const OK = { kind: "success", status: 200, durationMs: 5 } as const;

/** An hourly job whose run was handed out (its message lost), claimed and reported a success. */
async function settledRun(label: string) {
  const jobId = uniqueJobId(label);
  const path = `/ok/${jobId}`;
  const jobSpec = spec({
    schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
    target: { url: targetUrl(path), method: "POST" },
  });
  await placeJob(snapshot(jobId, jobSpec));
  await dispatchButLose([jobId]);
  const [run] = await liveRunsOf(jobId);
  if (run === undefined) throw new Error(`no run of ${jobId}`);
  const [claimed] = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId }]);
  expect(claimed).toMatchObject({ ok: true });
  const [reported] = await report(jobId, [{ runId: run.run_id, fence: run.fence, outcome: OK, jobId }]);
  expect(reported).toEqual({ ok: true, runId: run.run_id, state: "SUCCEEDED" });
  return { jobId, path, run };
}

describe("a run that succeeded", () => {
  beforeAll(() => seedTenant());

  it("leaves the wheel's table with its history record written, every state in it", async () => {
    const { jobId, run } = await settledRun("settles");
    expect(await liveRunsOf(jobId)).toEqual([]);
    const [record] = await historyOf(jobId);
    expect(record).toMatchObject({
      id: run.run_id,
      state: "SUCCEEDED",
      fence: run.fence,
      target_status: 200,
    });
    expect(statesOf(record!)).toEqual(["SCHEDULED", "ACQUIRED", "DISPATCHED", "RUNNING", "SUCCEEDED"]);
  });

  it("is not run again when its job's timer fires the same instant after it settled", async () => {
    // As for a run sent ahead of its instant: it is called and settles before its job's own pass.
    const { jobId, path, run } = await settledRun("refired");
    await makeJobDue(jobId, run.scheduled_at_ms);
    await runDurableObjectAlarm(stubFor(jobId));
    expect(await liveRunsOf(jobId)).toEqual([]);
    expect((await historyOf(jobId)).map((record) => record.state)).toEqual(["SUCCEEDED"]);
    // Its message was lost and the claim made by hand: a second run would be the only call.
    expect(await targetCalls(path)).toEqual([]);
  });

  it("refuses its message delivered again: a claim as a duplicate, a report as not running", async () => {
    const { jobId, run } = await settledRun("redelivered");
    const claims = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(claims).toEqual([{ ok: false, runId: run.run_id, code: "duplicate" }]);
    const reports = await report(jobId, [{ runId: run.run_id, fence: run.fence, outcome: OK, jobId }]);
    expect(reports).toEqual([{ ok: false, runId: run.run_id, code: "not_running" }]);
    expect((await historyOf(jobId)).map((record) => record.state)).toEqual(["SUCCEEDED"]);
  });

  it("keeps its instant from a manual trigger in the same millisecond", async () => {
    const { jobId, run } = await settledRun("trigger-instant");
    const free = await withShardState(stubFor(jobId), (state) =>
      freeTriggerInstant(state, jobId, run.scheduled_at_ms),
    );
    expect(free).toBe(run.scheduled_at_ms + 1);
  });
});
