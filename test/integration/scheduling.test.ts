import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { shardOfJob } from "../../src/shard/client";
import type {
  ClaimResult,
  DispatchMessage,
  DispatchRun,
  SingleRunDispatchMessage,
} from "../../src/shard/protocol";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { jobsDb } from "../helpers/job-databases";
import {
  dispatchButLose,
  historyOf,
  makeJobDue,
  placeJob,
  SIGNING_SECRET,
  seedTenant,
  setFaultsOf,
  shardRows,
  snapshot,
  spec,
  statesOf,
  stubFor,
  targetCalls,
  targetCallVerifies,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { patchJobOf, patchRunsOf } from "../helpers/shard-state";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

function onceJob(
  label: string,
  path: string,
  extra: Parameters<typeof spec>[0] extends infer T ? Partial<T> : never = {},
) {
  const jobId = uniqueJobId(label);
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(Date.now() - 200).toISOString() },
    target: {
      url: targetUrl(`${path}/${jobId}`),
      method: "POST",
      headers: { "x-test": label },
      body: { label },
    },
    ...extra,
  });
  return { jobId, jobSpec, path: `${path}/${jobId}` };
}

async function waitForState(jobId: string, state: string) {
  return vi.waitFor(async () => {
    const [run] = await historyOf(jobId);
    expect(run?.state).toBe(state);
    return run!;
  }, WAIT);
}

describe("the scheduling path: D1 -> shard alarm -> queue -> consumer -> target -> shard", () => {
  beforeAll(() => seedTenant());

  it("runs a due job once, with the documented headers and a verifiable signature, and records every state", async () => {
    const { jobId, jobSpec, path } = onceJob("happy", "/ok");
    await placeJob(snapshot(jobId, jobSpec));
    const run = await waitForState(jobId, "SUCCEEDED");
    expect(statesOf(run)).toEqual(["SCHEDULED", "ACQUIRED", "DISPATCHED", "RUNNING", "SUCCEEDED"]);
    const calls = await targetCalls(path);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    const scheduledAt =
      jobSpec.schedule?.type === "once" ? new Date(jobSpec.schedule.at ?? "").toISOString() : "";
    expect(call.method).toBe("POST");
    expect(JSON.parse(call.body)).toEqual({ label: "happy" });
    expect(call.headers["x-test"]).toBe("happy");
    expect(call.headers["idempotency-key"]).toBe(`${jobId}:${scheduledAt}`);
    expect(call.headers["edgecron-job-id"]).toBe(jobId);
    expect(call.headers["edgecron-run-id"]).toBe(run.id);
    expect(call.headers["edgecron-scheduled-at"]).toBe(scheduledAt);
    expect(call.headers["edgecron-attempt"]).toBe("1");
    expect(await targetCallVerifies(call, [SIGNING_SECRET])).toBe(true);
  });

  it("retries a failing target with the configured backoff, then dead-letters and raises an alert", async () => {
    const { jobId, jobSpec, path } = onceJob("retry", "/status/503", {
      retry: { max_attempts: 3, backoff: { initial: "1s", max: "10s", multiplier: 2, jitter: "none" } },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const run = await waitForState(jobId, "DEAD_LETTERED");
    expect(run.attempt).toBe(3);
    expect(statesOf(run).filter((state) => state === "FAILED")).toHaveLength(3);
    expect(statesOf(run).filter((state) => state === "RETRYING")).toHaveLength(2);
    const calls = await targetCalls(path);
    expect(calls.map((call) => call.headers["edgecron-attempt"])).toEqual(["1", "2", "3"]);
    const [first, second, third] = calls.map((call) => call.receivedAtMs);
    expect(second! - first!).toBeGreaterThanOrEqual(950);
    expect(third! - second!).toBeGreaterThanOrEqual(1_950);
    const letter = await vi.waitFor(async () => {
      const row = await env.DB.prepare("SELECT * FROM dead_letters WHERE job_id = ?")
        .bind(jobId)
        .first<{ reason: string; attempt: number; target_status: number }>();
      expect(row).not.toBeNull();
      return row!;
    }, WAIT);
    expect(letter).toMatchObject({ reason: "exhausted", attempt: 3, target_status: 503 });
    // The alert is written after the dead letter, by a separate statement: wait for it too.
    await vi.waitFor(async () => {
      const alert = await env.DB.prepare("SELECT kind FROM alerts WHERE job_id = ?")
        .bind(jobId)
        .first<{ kind: string }>();
      expect(alert?.kind).toBe("dead_lettered");
    }, WAIT);
  });

  it("dead-letters a permanent 4xx at once, without retrying", async () => {
    const { jobId, jobSpec, path } = onceJob("permanent", "/status/404");
    await placeJob(snapshot(jobId, jobSpec));
    const run = await waitForState(jobId, "DEAD_LETTERED");
    expect(run.attempt).toBe(1);
    expect(await targetCalls(path)).toHaveLength(1);
    await vi.waitFor(async () => {
      const row = await env.DB.prepare("SELECT reason FROM dead_letters WHERE job_id = ?")
        .bind(jobId)
        .first<{ reason: string }>();
      expect(row?.reason).toBe("permanent");
    }, WAIT);
  });

  it("executes a redelivered message once and refuses a stale fence", async () => {
    const { jobId, jobSpec, path } = onceJob("dedup", "/ok");
    await placeJob(snapshot(jobId, jobSpec));
    const run = await waitForState(jobId, "SUCCEEDED");
    const shard = shardOfJob(env, jobId);
    const sent: DispatchRun = {
      run_id: run.id,
      job_id: jobId,
      tenant_id: "ten_scheduling_tests",
      scheduled_at_ms: Date.parse((jobSpec.schedule as { at: string }).at),
      attempt: 1,
      fence: run.fence!,
      job_version: 1,
    };
    const batch = createMessageBatch<DispatchMessage | SingleRunDispatchMessage>("edgecron-dispatch", [
      { id: "redelivered", timestamp: new Date(), attempts: 1, body: { shard, runs: [sent] } },
      // Both runs of this bundle are refused: the same fence again, and an older one.
      {
        id: "bundle",
        timestamp: new Date(),
        attempts: 1,
        body: { shard, runs: [sent, { ...sent, fence: run.fence! - 1 }] },
      },
      // The first message format (one run, fields at the top) is still understood.
      { id: "stale", timestamp: new Date(), attempts: 1, body: { ...sent, shard, fence: run.fence! - 1 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["bundle", "redelivered", "stale"]);
    expect(result.retryMessages).toEqual([]);
    expect(await targetCalls(path)).toHaveLength(1);
  });

  it("loses no timer when the alarm throws half-way through a pass", async () => {
    const first = onceJob("throw", "/ok");
    const shard = shardOfJob(env, first.jobId);
    const jobs = [first];
    while (jobs.length < 6) {
      const candidate = onceJob("throw", "/ok");
      if (shardOfJob(env, candidate.jobId) === shard) jobs.push(candidate);
    }
    await setFaultsOf(first.jobId, { alarmThrowAfterJobs: 2 });
    for (const job of jobs) await placeJob(snapshot(job.jobId, job.jobSpec));
    for (const job of jobs) await waitForState(job.jobId, "SUCCEEDED");
    await setFaultsOf(first.jobId, {});
    for (const job of jobs) expect(await targetCalls(job.path)).toHaveLength(1);
  });

  it("keeps the timers of a failing sendBatch and dispatches them on a later tick", async () => {
    const { jobId, jobSpec, path } = onceJob("sendfail", "/ok", {
      schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const stub = stubFor(jobId);
    await setFaultsOf(jobId, { failSendBatch: true });
    await makeJobDue(jobId);
    await runDurableObjectAlarm(stub);
    const [pending] = await shardRows<{ state: string; events_json: string }>(
      jobId,
      "SELECT state, events_json FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(pending?.state).toBe("SCHEDULED");
    expect(pending?.events_json).toContain("queue send failed");
    await setFaultsOf(jobId, {});
    const run = await waitForState(jobId, "SUCCEEDED");
    expect(run.events_json).toContain("queue send failed");
    expect(await targetCalls(path)).toHaveLength(1);
  });

  it("re-sends a dispatch the queue lost once its lease expires", async () => {
    const { jobId, jobSpec, path } = onceJob("lease", "/ok", {
      schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const stub = stubFor(jobId);
    await setFaultsOf(jobId, { dropDispatches: true });
    await makeJobDue(jobId);
    await runDurableObjectAlarm(stub);
    const [lost] = await shardRows<{ state: string; fence: number }>(
      jobId,
      "SELECT state, fence FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(lost?.state).toBe("DISPATCHED");
    await setFaultsOf(jobId, {});
    await patchRunsOf(jobId, { due_at_ms: Date.now() - 1 });
    await runInDurableObject(stub, (_instance, state) => state.storage.setAlarm(Date.now() + 60_000));
    await runDurableObjectAlarm(stub);
    const run = await waitForState(jobId, "SUCCEEDED");
    expect(run.events_json).toContain("dispatch lease expired");
    expect(run.events_json).toContain("re-sent after its lease expired");
    // Same attempt, same fence: had the first message only been slow, it could still claim.
    expect(run.fence).toBe(lost!.fence);
    expect(await targetCalls(path)).toHaveLength(1);
  });

  it("refuses at claim a run stamped with an older job version", async () => {
    const { jobId, jobSpec } = onceJob("version", "/ok", {
      schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const stub = stubFor(jobId);
    await dispatchButLose([jobId]);
    const [run] = await shardRows<{ run_id: string; fence: number }>(
      jobId,
      "SELECT run_id, fence FROM runs WHERE job_id = ?",
      jobId,
    );
    await patchJobOf(jobId, { version: 2 });
    // RPC typing turns the `unknown` target body into `never`: name the real type.
    const claims: ClaimResult[] = await stub.claimRuns(shardOfJob(env, jobId), [
      { runId: run!.run_id, fence: run!.fence },
    ]);
    const [claim] = claims;
    expect(claim).toEqual({ ok: false, runId: run!.run_id, code: "stale_version" });
    const [after] = await historyOf(jobId);
    expect(after?.state).toBe("CANCELLED");
  });

  it("repairs a job whose shard push failed with one maintenance pass", async () => {
    const jobId = uniqueJobId("outbox");
    const jobSpec = spec({
      schedule: { type: "once", at: new Date(Date.now() - 100).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    const nowMs = Date.now();
    await jobsDb(jobId)
      .prepare(
        `INSERT INTO jobs (id, tenant_id, name, spec_json, status, version, shard, synced_version, created_at_ms, updated_at_ms)
       VALUES (?, 'ten_scheduling_tests', 'outbox', ?, 'ACTIVE', 1, ?, 0, ?, ?)`,
      )
      .bind(jobId, JSON.stringify(jobSpec), shardOfJob(env, jobId), nowMs, nowMs)
      .run();
    const summary = await maintenanceStub().runNow();
    expect(summary.resynced).toBeGreaterThanOrEqual(1);
    const row = await jobsDb(jobId)
      .prepare("SELECT synced_version FROM jobs WHERE id = ?")
      .bind(jobId)
      .first<{ synced_version: number }>();
    expect(row?.synced_version).toBe(1);
    await waitForState(jobId, "SUCCEEDED");
    expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1);
  });
});
