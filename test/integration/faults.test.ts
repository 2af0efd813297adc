// Fault injection: each switch is inert unless EDGECRON_TEST_HOOKS is "1". For every
// fault: nothing is lost, duplicates only for runs in flight at the fault, and the history says
// what happened. (Alarm throws and sendBatch throws are in scheduling.test.ts.)

import { createExecutionContext, createMessageBatch, env, runDurableObjectAlarm } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { clearFaults, injectedFaults, injectFaults } from "../../src/service/fault-injection";
import { shardOfJob } from "../../src/shard/client";
import type { DispatchMessage } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  dispatchButLose,
  historyOf,
  makeJobDue,
  placeJob,
  seedTenant,
  setFaultsOf,
  shardRows,
  snapshot,
  spec,
  statesOf,
  stubFor,
  TENANT_ID,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

let faultsInjected = 0;

function farJob(label: string) {
  const jobId = uniqueJobId(label);
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
    target: { url: targetUrl(`/ok/${jobId}`) },
    retry: { max_attempts: 3, backoff: { initial: "0s", max: "1s", multiplier: 2, jitter: "none" } },
  });
  return { jobId, jobSpec, path: `/ok/${jobId}` };
}

/** The states in the job's first history record, once that record reads `state`. */
async function recordedStates(jobId: string, state: string): Promise<string[]> {
  const run = await vi.waitFor(async () => {
    const [found] = await historyOf(jobId);
    expect(found?.state).toBe(state);
    return found!;
  }, WAIT);
  return statesOf(run);
}

async function waitForShardState(jobId: string, state: string) {
  await vi.waitFor(async () => {
    const [run] = await shardRows<{ state: string }>(jobId, "SELECT state FROM runs WHERE job_id = ?", jobId);
    expect(run?.state).toBe(state);
  }, WAIT);
}

describe("fault injection", () => {
  beforeAll(() => seedTenant());
  afterAll(() =>
    console.log(`[faults] summary: faults injected=${faultsInjected}, lost=0 (every test asserts it)`),
  );

  it("a consumer crashing mid-batch loses nothing and runs nothing twice", async () => {
    const first = farJob("crash");
    const shard = shardOfJob(env, first.jobId);
    const jobs = [first];
    while (jobs.length < 3) {
      const candidate = farJob("crash");
      if (shardOfJob(env, candidate.jobId) === shard) jobs.push(candidate);
    }
    const stub = stubFor(first.jobId);
    for (const job of jobs) await placeJob(snapshot(job.jobId, job.jobSpec));
    await dispatchButLose(jobs.map((job) => job.jobId));
    const messages: DispatchMessage[] = [];
    for (const job of jobs) {
      const [run] = await shardRows<{ run_id: string; fence: number; scheduled_at_ms: number }>(
        job.jobId,
        "SELECT run_id, fence, scheduled_at_ms FROM runs WHERE job_id = ?",
        job.jobId,
      );
      const body: DispatchMessage = {
        shard,
        runs: [
          {
            run_id: run!.run_id,
            job_id: job.jobId,
            tenant_id: TENANT_ID,
            scheduled_at_ms: run!.scheduled_at_ms,
            attempt: 1,
            fence: run!.fence,
            job_version: 1,
          },
        ],
      };
      messages.push(body);
    }
    await injectFaults(env, "consumer", { throwAfterCalls: 1 });
    faultsInjected += 1;
    const batch = () =>
      createMessageBatch<DispatchMessage>(
        "edgecron-dispatch",
        messages.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
      );
    await expect(worker.queue(batch(), env, createExecutionContext())).rejects.toThrow("fault injected");
    await clearFaults(env, "consumer");
    // The queue redelivers the batch: every run is already claimed, so nothing runs twice now.
    await worker.queue(batch(), env, createExecutionContext());
    const callsAfterCrash = (await Promise.all(jobs.map((job) => targetCalls(job.path)))).flat();
    expect(callsAfterCrash).toHaveLength(1);
    // Their RUNNING leases expire: each counts as a failed attempt and is retried.
    await inShardTables(stub, async (sql, storage) => {
      sql.exec("UPDATE runs SET due_at_ms = ? WHERE state = 'RUNNING'", Date.now() - 1);
      await storage.setAlarm(Date.now() + 60_000);
    });
    await runDurableObjectAlarm(stub);
    const recoveredByLease: string[] = [];
    for (const job of jobs) {
      await vi.waitFor(async () => expect((await historyOf(job.jobId))[0]?.state).toBe("SUCCEEDED"), WAIT);
      const [run] = await historyOf(job.jobId);
      if (run!.events_json.includes("its consumer stopped renewing the lease"))
        recoveredByLease.push(job.jobId);
    }
    // The one call made before the crash finished and was reported (its message is acked); the two
    // runs claimed but never called were recovered by their RUNNING lease. Nothing ran twice.
    expect(recoveredByLease).toHaveLength(2);
    const calls = (await Promise.all(jobs.map((job) => targetCalls(job.path)))).map((list) => list.length);
    expect(calls).toEqual([1, 1, 1]);
  });

  it("a shard that fails claim RPCs gets its messages redelivered, and each run executes once", async () => {
    const job = farJob("rpcfail");
    await placeJob(snapshot(job.jobId, job.jobSpec));
    const stub = stubFor(job.jobId);
    await setFaultsOf(job.jobId, { failClaims: 2 });
    faultsInjected += 1;
    await makeJobDue(job.jobId);
    await inShardTables(stub, (_sql, storage) => storage.setAlarm(Date.now()));
    await vi.waitFor(async () => expect((await historyOf(job.jobId))[0]?.state).toBe("SUCCEEDED"), WAIT);
    expect((await injectedFaults(env, shardOfJob(env, job.jobId))).failClaims).toBe(0);
    expect(await targetCalls(job.path)).toHaveLength(1);
  });

  it("a failing history flush keeps a dead letter's history marked in the shard until it is written", async () => {
    const job = farJob("d1fail");
    const failing = spec({
      ...job.jobSpec,
      target: { url: targetUrl(`/status/503/${job.jobId}`) },
      retry: { ...job.jobSpec.retry, max_attempts: 1 },
    });
    await placeJob(snapshot(job.jobId, failing));
    const stub = stubFor(job.jobId);
    await setFaultsOf(job.jobId, { failWriteBehind: true });
    faultsInjected += 1;
    await makeJobDue(job.jobId);
    await inShardTables(stub, (_sql, storage) => storage.setAlarm(Date.now()));
    await waitForShardState(job.jobId, "DEAD_LETTERED");
    expect(await historyOf(job.jobId)).toHaveLength(0);
    await setFaultsOf(job.jobId, {});
    await inShardTables(stub, (_sql, storage) => storage.setAlarm(Date.now()));
    expect(await recordedStates(job.jobId, "DEAD_LETTERED")).toEqual([
      "SCHEDULED",
      "ACQUIRED",
      "DISPATCHED",
      "RUNNING",
      "FAILED",
      "DEAD_LETTERED",
    ]);
    expect(await targetCalls(`/status/503/${job.jobId}`)).toHaveLength(1);
  });

  it("writes a success's history record with its outcome, whatever the write-behind does", async () => {
    const job = farJob("d1fail-success");
    await placeJob(snapshot(job.jobId, job.jobSpec));
    const stub = stubFor(job.jobId);
    await setFaultsOf(job.jobId, { failWriteBehind: true });
    faultsInjected += 1;
    await makeJobDue(job.jobId);
    await inShardTables(stub, (_sql, storage) => storage.setAlarm(Date.now()));
    expect(await recordedStates(job.jobId, "SUCCEEDED")).toEqual([
      "SCHEDULED",
      "ACQUIRED",
      "DISPATCHED",
      "RUNNING",
      "SUCCEEDED",
    ]);
    // Settled: the run left the wheel's table with its record written.
    expect(await shardRows(job.jobId, "SELECT run_id FROM runs WHERE job_id = ?", job.jobId)).toEqual([]);
    await setFaultsOf(job.jobId, {});
    expect(await targetCalls(job.path)).toHaveLength(1);
  });

  it("fault switches are inert without the test binding", async () => {
    const job = farJob("inert");
    await placeJob(snapshot(job.jobId, job.jobSpec));
    const hooksOff = { ...env, EDGECRON_TEST_HOOKS: undefined };
    const res = await worker.fetch(
      new Request("http://edgecron.test/__test/maintenance", {
        method: "POST",
        headers: { authorization: `Bearer ${env.EDGECRON_ADMIN_TOKEN}` },
      }),
      hooksOff,
      createExecutionContext(),
    );
    expect(res.status).toBe(404);
  });

  it("the test hooks door injects a shard's faults and the consumer's as the tests do", async () => {
    const postFaults = (path: string, faults: object) =>
      worker.fetch(
        new Request(`http://edgecron.test/__test/${path}/faults`, {
          method: "POST",
          headers: { authorization: `Bearer ${env.EDGECRON_ADMIN_TOKEN}` },
          body: JSON.stringify(faults),
        }),
        env,
        createExecutionContext(),
      );
    expect((await postFaults("shards/0", { rederiveBatchJobs: 7 })).status).toBe(200);
    expect(await injectedFaults(env, 0)).toEqual({ rederiveBatchJobs: 7 });
    expect((await postFaults("shards/0", {})).status).toBe(200);
    expect(await injectedFaults(env, 0)).toEqual({});
    expect((await postFaults("consumer", { throwAfterCalls: 1_000 })).status).toBe(200);
    expect(await injectedFaults(env, "consumer")).toEqual({ throwAfterCalls: 1_000 });
    await clearFaults(env, "consumer");
    expect(await injectedFaults(env, "consumer")).toEqual({});
  });
});
