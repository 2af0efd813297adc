// Leases of runs in flight (src/core/runs/run-leases.ts, durable-objects/shard/runs/leases.ts): short,
// renewed by the consumer holding the run (in memory, no row per renewal), cut short for every run
// in flight when the shard restarts, and a lapsed one is the attempt lost: it goes again at once.
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { expireLapsedLease } from "../../durable-objects/shard/runs/leases";
import type { ShardScheduler } from "../../durable-objects/shard/shard-scheduler";
import {
  LEASE_RENEW_EVERY_MS,
  RESTART_LEASE_MS,
  RESTART_SEND_LEASE_MS,
  RUNNING_LEASE_MS,
} from "../../src/core/runs/run-leases";
import worker from "../../src/index";
import { claimRuns, renewLeases } from "../../src/shard/client";
import type { DispatchMessage } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  dispatchButLose,
  placeJob,
  seedTenant,
  snapshot,
  spec,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { liveRunsOf, patchRunsOf, withShardState } from "../helpers/shard-state";

disarmShardsAfterEach();

beforeAll(async () => {
  await seedTenant();
});

const far = () => ({ type: "once" as const, at: new Date(Date.now() + 3_600_000).toISOString() });

/** A job placed on its shard with one run handed to a queue that lost it (DISPATCHED, fenced). */
async function dispatchedRun(label: string, path: string, timeout = "30s") {
  const jobId = uniqueJobId(label);
  const job = snapshot(
    jobId,
    spec({ schedule: far(), target: { url: targetUrl(`${path}/${jobId}`) }, timeout }),
  );
  await placeJob(job);
  await dispatchButLose([jobId]);
  const [run] = await liveRunsOf(jobId);
  if (run?.state !== "DISPATCHED" || run.fence === null) throw new Error(`no dispatched run of ${jobId}`);
  return { job, jobId, run: { ...run, fence: run.fence } };
}

/** The newest journal entry's sequence number: what the shard has written so far. */
function journalSeq(jobId: string): Promise<number> {
  return runInDurableObject(stubFor(jobId), (instance: ShardScheduler) => {
    const row = instance.state.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM journal").one();
    return row.seq ?? 0;
  });
}

describe("a claimed run's lease", () => {
  it("is renewed by the consumer while its call runs, past the lease the claim wrote", async () => {
    const { job, jobId, run } = await dispatchedRun("renewed", `/slow/${LEASE_RENEW_EVERY_MS + 2_500}`);
    const message = {
      shard: job.shard,
      runs: [
        {
          run_id: run.run_id,
          job_id: jobId,
          tenant: job.tenantId,
          scheduled_at: run.scheduled_at_ms,
          attempt: 1,
          fence: run.fence,
          version: 1,
        },
      ],
    };
    const batch = createMessageBatch<DispatchMessage>("edgecron-dispatch", [
      { id: "slow", timestamp: new Date(), attempts: 1, body: message },
    ]);
    const ctx = createExecutionContext();
    const claimedByMs = Date.now();
    await worker.queue(batch, env, ctx);
    // The call outlasts a renewal period: its lease moves past what the claim wrote.
    await vi.waitFor(async () => {
      const [running] = await liveRunsOf(jobId);
      expect(running?.state).toBe("RUNNING");
      expect(running?.due_at_ms).toBeGreaterThan(claimedByMs + RUNNING_LEASE_MS);
    }, WAIT);
    await getQueueResult(batch, ctx);
    await vi.waitFor(async () => expect(await liveRunsOf(jobId)).toEqual([]), WAIT);
    expect(await targetCalls(`/slow/${LEASE_RENEW_EVERY_MS + 2_500}/${jobId}`)).toHaveLength(1);
  });

  it("is renewed only under the run's fence, and a renewal writes nothing", async () => {
    const { job, jobId, run } = await dispatchedRun("fenced", "/ok");
    const [claim] = await claimRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(claim?.ok).toBe(true);
    const [claimed] = await liveRunsOf(jobId);
    const seqBefore = await journalSeq(jobId);
    expect(await renewLeases(env, job.shard, [{ runId: run.run_id, fence: run.fence + 1 }])).toBe(0);
    expect((await liveRunsOf(jobId))[0]?.due_at_ms).toBe(claimed?.due_at_ms);
    const renewedAtMs = Date.now();
    expect(await renewLeases(env, job.shard, [{ runId: run.run_id, fence: run.fence }])).toBe(1);
    const [renewed] = await liveRunsOf(jobId);
    expect(renewed?.due_at_ms).toBeGreaterThanOrEqual(renewedAtMs + RUNNING_LEASE_MS);
    expect(await journalSeq(jobId)).toBe(seqBefore);
  });
});

describe("a renewal", () => {
  it("caps the lease from the call's start, and not while the run still waits for a connection", async () => {
    const { job, jobId, run } = await dispatchedRun("waiting", "/ok", "1s");
    const [claim] = await claimRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(claim?.ok).toBe(true);
    const [claimed] = await liveRunsOf(jobId);
    // A call that started a minute ago is past its timeout and grace: nothing to renew it by.
    const started = { runId: run.run_id, fence: run.fence, callStartedAtMs: Date.now() - 60_000 };
    expect(await renewLeases(env, job.shard, [started])).toBe(1);
    expect((await liveRunsOf(jobId))[0]?.due_at_ms).toBe(claimed?.due_at_ms);
    // Still waiting for a connection (a saturated consumer), however long: a full lease from now.
    const renewedAtMs = Date.now();
    const waiting = { runId: run.run_id, fence: run.fence, callStartedAtMs: null };
    expect(await renewLeases(env, job.shard, [waiting])).toBe(1);
    expect((await liveRunsOf(jobId))[0]?.due_at_ms).toBeGreaterThanOrEqual(renewedAtMs + RUNNING_LEASE_MS);
  });
});

describe("a lease that lapses at its pass's very millisecond", () => {
  it("sends the lost attempt's retry once, at once (not a whole lease later)", async () => {
    const { job, jobId, run } = await dispatchedRun("lapse-same-ms", "/ok");
    const [claim] = await claimRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(claim?.ok).toBe(true);
    // The retry of a lost attempt is due "now": the lease's own millisecond, an older entry of the
    // due index holds it too. CI saw the next pass read the run twice and fail its second hand-out.
    await withShardState(stubFor(jobId), (state) => {
      const live = state.runs.get(run.run_id);
      if (live === undefined) throw new Error(`no run ${run.run_id}`);
      const lapsedAtMs = Date.now() - 1;
      state.holdLease(live, lapsedAtMs);
      expireLapsedLease(state, live, lapsedAtMs);
      expect(live.state).toBe("RETRYING");
      expect(state.runs.oldestDue(Date.now(), 10).filter((due) => due === live)).toHaveLength(1);
    });
    await runDurableObjectAlarm(stubFor(jobId));
    // Within WAIT (20 s), well short of the 30 s lease a failed hand-out would wait out.
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1), WAIT);
  });
});

describe("a pass that runs late", () => {
  it("gives a lease it finds long lapsed one short grace for the consumer's renewal, once per claim", async () => {
    const { job, jobId, run } = await dispatchedRun("late-pass", "/ok");
    const [claim] = await claimRuns(env, job.shard, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(claim?.ok).toBe(true);
    // The isolate was starved: the pass comes 5 s after the lease lapsed, the renewals as late.
    await patchRunsOf(jobId, { due_at_ms: Date.now() - 5_000 });
    const passAtMs = Date.now();
    await runDurableObjectAlarm(stubFor(jobId));
    const [graced] = await liveRunsOf(jobId);
    expect(graced?.state).toBe("RUNNING");
    expect(graced?.due_at_ms).toBeGreaterThanOrEqual(passAtMs + LEASE_RENEW_EVERY_MS);
    expect(graced?.due_at_ms).toBeLessThanOrEqual(Date.now() + 2 * LEASE_RENEW_EVERY_MS);
    // The late renewal arrives within the grace and keeps the run its consumer's.
    expect(await renewLeases(env, job.shard, [{ runId: run.run_id, fence: run.fence }])).toBe(1);
    expect((await liveRunsOf(jobId))[0]?.state).toBe("RUNNING");
    // Lapsed long ago again under the same claim: no second grace, the attempt goes again.
    await patchRunsOf(jobId, { due_at_ms: Date.now() - 5_000 });
    await runDurableObjectAlarm(stubFor(jobId));
    const [retrying] = await liveRunsOf(jobId);
    // The retry is due at once, so the shard's own alarm may already have sent it again (CI saw
    // DISPATCHED): what matters is that the attempt was given up, not graced a second time.
    expect(["RETRYING", "DISPATCHED"]).toContain(retrying?.state);
    expect(retrying?.events.map((event) => event.reason)).toContainEqual(
      expect.stringMatching(/attempt 1 of \d+ lost; retry now/),
    );
  });
});

describe("a shard that restarts", () => {
  it("gives each run in flight a short lease from the restart, and a lapsed one goes again at once", async () => {
    const running = await dispatchedRun("restart-running", "/ok");
    const sent = await dispatchedRun("restart-sent", "/ok");
    const [claim] = await claimRuns(env, running.job.shard, [
      { runId: running.run.run_id, fence: running.run.fence, jobId: running.jobId },
    ]);
    expect(claim?.ok).toBe(true);
    // As written before the crash: a claim's lease that lapsed while the service was down, and a
    // dispatch lease far ahead.
    await patchRunsOf(running.jobId, { due_at_ms: Date.now() - 60_000 });
    await patchRunsOf(sent.jobId, { due_at_ms: Date.now() + 60_000 });
    for (const jobId of [running.jobId, sent.jobId]) {
      await runInDurableObject(stubFor(jobId), (_instance, state) => state.abort("restart")).catch(() => {});
    }
    const restartedAtMs = Date.now();
    const [afterRunning] = await liveRunsOf(running.jobId);
    const [afterSent] = await liveRunsOf(sent.jobId);
    const doneAtMs = Date.now();
    // A consumer that outlived the shard may still renew the claimed run: presumed lost
    // RESTART_LEASE_MS after the restart. The sent run's message may have died with the service:
    // sent again RESTART_SEND_LEASE_MS after it (a copy too many is refused at its claim).
    // (On a slow machine the sent run's second may pass before this read: then it was re-sent.)
    const resentSinceRestart = afterSent?.events.some(
      (event) => event.reason === "re-sent after its lease expired" && event.at_ms >= restartedAtMs,
    );
    const bounds: [typeof afterRunning, number][] = [
      [afterRunning, RESTART_LEASE_MS],
      ...(resentSinceRestart ? [] : [[afterSent, RESTART_SEND_LEASE_MS] as [typeof afterRunning, number]]),
    ];
    for (const [run, leaseMs] of bounds) {
      expect(run?.due_at_ms).toBeGreaterThanOrEqual(restartedAtMs + leaseMs - 1_000);
      expect(run?.due_at_ms).toBeLessThanOrEqual(doneAtMs + leaseMs);
    }
    expect(afterRunning?.state).toBe("RUNNING");
    expect(afterSent?.state).toBe("DISPATCHED");

    // Nobody renews: the lease lapses, and the attempt, lost rather than failed, goes again now.
    await patchRunsOf(running.jobId, { due_at_ms: Date.now() - 1 });
    const lapsedAtMs = Date.now();
    await runDurableObjectAlarm(stubFor(running.jobId));
    const [retrying] = await liveRunsOf(running.jobId);
    // The retry is due at once, so the shard's own alarm may already have sent it again (CI saw
    // DISPATCHED): what matters is that the attempt was given up now, as lost, not failed.
    expect(["RETRYING", "DISPATCHED"]).toContain(retrying?.state);
    const givenUp = retrying?.events.find((event) => /attempt 1 of \d+ lost; retry now/.test(event.reason));
    expect(givenUp?.at_ms).toBeGreaterThanOrEqual(lapsedAtMs);
    expect(givenUp?.at_ms).toBeLessThanOrEqual(Date.now());
    await runDurableObjectAlarm(stubFor(running.jobId));
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${running.jobId}`)).toHaveLength(1), WAIT);
  });
});
