// A flow gate below the API: a shard's tick asks the gate, a refused run stays SCHEDULED with its
// timer moved and counts in the key's wait list, and a returned permit wakes it at once.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { PARALLELISM_RECHECK_MS } from "../../src/core/load/flow-control";
import { acquirePermits, flowKeyGate, gateState, releasePermits, renewPermits } from "../../src/gate/client";
import { loseShardAlarm } from "../../src/service/fault-injection";
import { shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { jobIdsOnAnUnusedShard } from "../helpers/dead-letters";
import {
  makeJobDue,
  placeJob,
  seedTenant,
  snapshot,
  spec,
  stubFor,
  TENANT_ID,
  targetUrl,
  uniqueJobId,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

type RunTimer = {
  state: string;
  due_at_ms: number | null;
  flow_gate: string | null;
};

async function runsOf(jobId: string): Promise<RunTimer[]> {
  return inShardTables(stubFor(jobId), (sql, _storage) =>
    sql.exec<RunTimer>("SELECT state, due_at_ms, flow_gate FROM runs WHERE job_id = ?", jobId).toArray(),
  );
}

/** Someone outside the shard takes the key's only permit (parallelism 1). */
async function takeOnlyPermit(gate: string, key: string, runId: string) {
  return acquirePermits(env, gate, {
    gate,
    key,
    tenantId: TENANT_ID,
    limits: { rate: null, periodMs: 1_000, parallelism: 1 },
    holder: null,
    runs: [{ runId, leaseMs: 60_000 }],
  });
}

/** An hourly job under the key's parallelism 1. */
async function placeGatedJob(jobId: string, key: string, path: string): Promise<void> {
  await placeJob(
    snapshot(
      jobId,
      spec({
        schedule: { type: "interval", every: "1h" },
        target: { url: targetUrl(path) },
        flow_control: { key, parallelism: 1 },
      }),
    ),
  );
}

describe("a flow gate and its shards", () => {
  it("keeps a refused run SCHEDULED until a permit comes back, then wakes it", async () => {
    await seedTenant();
    const key = `gate-${crypto.randomUUID().slice(0, 8)}`;
    const gate = flowKeyGate(TENANT_ID, key);
    // Someone else holds the key's only permit.
    const held = await takeOnlyPermit(gate, key, "run_elsewhere");
    expect(held.granted).toEqual(["run_elsewhere"]);
    const jobId = uniqueJobId("gate");
    await placeGatedJob(jobId, key, "/ok/gate");
    await makeJobDue(jobId);
    const askedAtMs = Date.now();
    await runDurableObjectAlarm(stubFor(jobId));
    const [waiting] = await runsOf(jobId);
    expect(waiting?.state).toBe("SCHEDULED");
    expect(waiting?.flow_gate).toBe(gate);
    expect(waiting?.due_at_ms).toBeGreaterThanOrEqual(askedAtMs + PARALLELISM_RECHECK_MS);
    expect(await gateState(env, gate)).toMatchObject({ waiting: 1, inFlight: 1 });
    // Hold the shard's alarm, so what moves the timer is the wake-up, not a tick.
    const shard = shardOfJob(env, jobId);
    await loseShardAlarm(env, shard, 10_000);
    const releasedAtMs = Date.now();
    await releasePermits(env, gate, { runIds: ["run_elsewhere"], returnRate: false });
    await vi.waitFor(
      async () => {
        const [woken] = await runsOf(jobId);
        expect(woken?.state).toBe("SCHEDULED");
        expect(woken?.due_at_ms).toBeLessThan((waiting?.due_at_ms as number) - 1);
        expect(woken?.due_at_ms).toBeGreaterThanOrEqual(releasedAtMs);
      },
      { timeout: 5_000, interval: 50 },
    );
    await loseShardAlarm(env, shard, 0);
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("DELETE FROM runs WHERE job_id = ?", jobId);
      sql.exec("DELETE FROM jobs WHERE job_id = ?", jobId);
    });
  });

  it("counts every run a shard has waiting at the key, asked in one pass or in several", async () => {
    await seedTenant();
    const key = `gate-count-${crypto.randomUUID().slice(0, 8)}`;
    const gate = flowKeyGate(TENANT_ID, key);
    await takeOnlyPermit(gate, key, "run_elsewhere_count");
    const jobIds = jobIdsOnAnUnusedShard("gate-count", 2);
    for (const jobId of jobIds) await placeGatedJob(jobId, key, "/ok/gate-count");
    // One run asks and waits; later a second run of the same shard asks on its own.
    for (const [index, jobId] of jobIds.entries()) {
      await makeJobDue(jobId);
      await runDurableObjectAlarm(stubFor(jobId));
      const [waiting] = await runsOf(jobId);
      expect(waiting?.flow_gate).toBe(gate);
      expect(await gateState(env, gate)).toMatchObject({ waiting: index + 1 });
    }
    await releasePermits(env, gate, { runIds: ["run_elsewhere_count"], returnRate: false });
    await inShardTables(stubFor(jobIds[0] as string), (sql, _storage) => {
      for (const jobId of jobIds) {
        sql.exec("DELETE FROM runs WHERE job_id = ?", jobId);
        sql.exec("DELETE FROM jobs WHERE job_id = ?", jobId);
      }
    });
  });

  it("expires a permit never returned, unless it is renewed", async () => {
    const gate = flowKeyGate(TENANT_ID, `expiry-${crypto.randomUUID().slice(0, 8)}`);
    const request = (runId: string) => ({
      gate,
      key: "expiry",
      tenantId: null,
      limits: { rate: null, periodMs: 1_000, parallelism: 2 },
      holder: null,
      runs: [{ runId, leaseMs: 200 }],
    });
    await acquirePermits(env, gate, request("run_lost"));
    await acquirePermits(env, gate, request("run_renewed"));
    await renewPermits(env, gate, { runs: [{ runId: "run_renewed", leaseMs: 60_000 }] });
    expect((await gateState(env, gate)).inFlight).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await gateState(env, gate)).inFlight).toBe(1);
    const next = await acquirePermits(env, gate, request("run_next"));
    expect(next.granted).toEqual(["run_next"]);
    expect((await acquirePermits(env, gate, request("run_over"))).granted).toEqual([]);
  });
});
