// Hanging calls under Cloudflare's six connections (EMULATE_CONNECTION_CAP): a handed-off call
// keeps its connection, so a batch whose connections all hang gives the runs it cannot call back
// to their shard uncalled, instead of holding them (and the batch behind it) for the calls'
// timeout; and a tenant whose calls hang never takes a batch's last connection from the others.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { GIVEN_BACK_REASON } from "../../durable-objects/shard/runs/give-backs";
import worker from "../../src/index";
import { claimRuns, giveBackRuns } from "../../src/shard/client";
import type { DispatchMessage, DispatchRun, ShardJob } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { jobIdsOnAnUnusedShard } from "../helpers/dead-letters";
import {
  currentRunsOf,
  dispatchButLose,
  placeJob,
  seedTenant,
  snapshot,
  spec,
  targetCalls,
  targetUrl,
  WAIT,
} from "../helpers/scheduling";

disarmShardsAfterEach();

const HANGING_TENANT = "ten_hangs_under_cap";
/** Far past the hand-off deadline and any batch's normal length. */
const HANG_MS = 6_000;
/** The dispatch data points the capped batches wrote (Analytics Engine cannot be read back locally). */
const dataPoints: AnalyticsEngineDataPoint[] = [];
const CAPPED = {
  ...env,
  EMULATE_CONNECTION_CAP: "true",
  ANALYTICS: { writeDataPoint: (point?: AnalyticsEngineDataPoint) => point && dataPoints.push(point) },
};
const FAR = { type: "once" as const, at: new Date(Date.now() + 3_600_000).toISOString() };

beforeAll(async () => {
  await seedTenant();
  await seedTenant(HANGING_TENANT, "c".repeat(64));
});

interface RunRow {
  run_id: string;
  fence: number;
  scheduled_at_ms: number;
  state: string;
  attempt: number;
  events_json: string;
  slow_since_ms: number | null;
}

/** The job's run as it stands: its live row, or its history record once it settled. */
async function runOf(jobId: string): Promise<RunRow> {
  const [run] = await currentRunsOf<RunRow>(jobId, [
    "run_id",
    "fence",
    "scheduled_at_ms",
    "state",
    "attempt",
    "events_json",
    "slow_since_ms",
  ]);
  if (run === undefined) throw new Error(`no run of ${jobId}`);
  return run;
}

/** Jobs placed and their one run each sent into the void: the test delivers the message itself. */
async function dispatchedRuns(jobs: ShardJob[]): Promise<DispatchRun[]> {
  for (const job of jobs) await placeJob(job);
  await dispatchButLose(jobs.map((job) => job.jobId));
  return Promise.all(
    jobs.map(async (job) => {
      const run = await runOf(job.jobId);
      return {
        run_id: run.run_id,
        job_id: job.jobId,
        tenant_id: job.tenantId,
        scheduled_at_ms: run.scheduled_at_ms,
        attempt: 1,
        fence: run.fence,
        job_version: 1,
      };
    }),
  );
}

function hangingJob(jobId: string): ShardJob {
  const target = { url: targetUrl(`/slow/${HANG_MS}/${jobId}`) };
  return { ...snapshot(jobId, spec({ schedule: FAR, target, timeout: "30s" })), tenantId: HANGING_TENANT };
}

function quickJob(jobId: string): ShardJob {
  return snapshot(jobId, spec({ schedule: FAR, target: { url: targetUrl(`/ok/${jobId}`) } }));
}

async function deliverCapped(id: string, shard: number, runs: DispatchRun[]) {
  const batch = createMessageBatch<DispatchMessage>("edgecron-dispatch", [
    { id, timestamp: new Date(), attempts: 1, body: { shard, runs } },
  ]);
  const ctx = createExecutionContext();
  const startedAtMs = Date.now();
  await worker.queue(batch, CAPPED, ctx);
  return { batch, ctx, tookMs: Date.now() - startedAtMs };
}

function eventsOf(run: RunRow): { state: string; reason: string }[] {
  return JSON.parse(run.events_json) as { state: string; reason: string }[];
}

describe("hanging calls under the six connections", () => {
  it("gives back uncalled the runs a batch has no connection left for, and they run from their shard", async () => {
    const ids = jobIdsOnAnUnusedShard("cap-hangs", 8);
    const hanging = ids.slice(0, 7).map(hangingJob);
    const quick = quickJob(ids[7] as string);
    const runs = await dispatchedRuns([...hanging, quick]);
    dataPoints.length = 0;
    const { batch, ctx, tookMs } = await deliverCapped("all-six-hang", quick.shard, runs);
    // Only the six calls made count as dispatches; the two given back count when they are called.
    expect(dataPoints.filter((point) => point.blobs?.[0] === "dispatch")).toHaveLength(6);

    // Six calls hang, each keeping its connection once slow; the batch did not wait for them.
    expect(tookMs).toBeLessThan(HANG_MS / 2);
    const [seventh, quickRun] = [runs[6] as DispatchRun, runs[7] as DispatchRun];
    for (const run of runs.slice(0, 6)) {
      const row = await runOf(run.job_id);
      expect(row.state).toBe("RUNNING");
      expect(row.fence).toBe(run.fence);
    }
    // The two runs it had no connection for went back to their shard uncalled, their attempt
    // unspent (the shard may already have sent them again: it owes them nothing but a send).
    for (const run of [seventh, quickRun]) {
      const row = await runOf(run.job_id);
      expect(eventsOf(row)).toContainEqual(
        expect.objectContaining({ state: "SCHEDULED", reason: GIVEN_BACK_REASON }),
      );
      expect(row.attempt).toBe(1);
    }
    // The message they came in is fenced off: a copy of it delivered again cannot run them.
    const refused = await claimRuns(env, quick.shard, [{ runId: quickRun.run_id, fence: quickRun.fence }]);
    expect(refused[0]).toMatchObject({ ok: false });

    // The shard sends them again (the uncapped consumer here calls them): each runs exactly once.
    await vi.waitFor(async () => expect((await runOf(quick.jobId)).state).toBe("SUCCEEDED"), WAIT);
    const states = eventsOf(await runOf(quick.jobId)).map((event) => event.state);
    expect(states).toEqual([
      "SCHEDULED",
      "ACQUIRED",
      "DISPATCHED",
      "RUNNING",
      "SCHEDULED",
      "ACQUIRED",
      "DISPATCHED",
      "RUNNING",
      "SUCCEEDED",
    ]);
    expect(await targetCalls(`/ok/${quick.jobId}`)).toHaveLength(1);
    await getQueueResult(batch, ctx);
    expect(batch.messages).toHaveLength(1);
    await vi.waitFor(async () => expect((await runOf(seventh.job_id)).state).toBe("SUCCEEDED"), {
      timeout: HANG_MS * 3,
      interval: 100,
    });
    expect(await targetCalls(`/slow/${HANG_MS}/${seventh.job_id}`)).toHaveLength(1);
  }, 40_000);

  it("keeps the last connection from a tenant whose calls already hang: the other tenant's run is called", async () => {
    const ids = jobIdsOnAnUnusedShard("cap-known-hanger", 8);
    const first = hangingJob(ids[0] as string);
    // One call of the tenant hangs and turns slow: from then on the tenant is known to hang here.
    const firstDelivery = await deliverCapped("first-hang", first.shard, await dispatchedRuns([first]));
    await vi.waitFor(async () => expect((await runOf(first.jobId)).slow_since_ms).not.toBeNull(), WAIT);
    const hanging = ids.slice(1, 7).map(hangingJob);
    const quick = quickJob(ids[7] as string);
    const runs = await dispatchedRuns([...hanging, quick]);
    const { batch, ctx, tookMs } = await deliverCapped("hanger-known", quick.shard, runs);

    expect(tookMs).toBeLessThan(HANG_MS / 2);
    // Five of its six runs took connections; its sixth went back; the other tenant's run was called.
    expect((await runOf(quick.jobId)).state).toBe("SUCCEEDED");
    expect(await targetCalls(`/ok/${quick.jobId}`)).toHaveLength(1);
    expect(eventsOf(await runOf(quick.jobId)).map((event) => event.reason)).not.toContain(GIVEN_BACK_REASON);
    const givenBack = await Promise.all(
      hanging.map(async (job) =>
        eventsOf(await runOf(job.jobId)).some((event) => event.reason === GIVEN_BACK_REASON),
      ),
    );
    expect(givenBack).toEqual([false, false, false, false, false, true]);
    await getQueueResult(firstDelivery.batch, firstDelivery.ctx);
    await getQueueResult(batch, ctx);
  }, 40_000);

  it("moves only a run still at the fence it was sent with", async () => {
    const [jobId] = jobIdsOnAnUnusedShard("cap-give-back-fence", 1) as [string];
    const job = quickJob(jobId);
    const [run] = (await dispatchedRuns([job])) as [DispatchRun];
    expect(await giveBackRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence + 1 }])).toBe(0);
    expect((await runOf(jobId)).state).toBe("DISPATCHED");
    expect(await giveBackRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence }])).toBe(1);
    const events = eventsOf(await runOf(jobId));
    expect(events.filter((event) => event.reason === GIVEN_BACK_REASON)).toHaveLength(1);
    // Given back twice (a copy of the message): the second finds it moved on and leaves it.
    expect(await giveBackRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence }])).toBe(0);
    await vi.waitFor(async () => expect((await runOf(jobId)).state).toBe("SUCCEEDED"), WAIT);
    expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1);
  });
});
