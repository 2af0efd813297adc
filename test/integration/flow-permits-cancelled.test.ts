// A run sent with a flow-control permit and then cancelled before its call (its job deleted or
// paused, its tenant suspended) gives the permit back at once. It used to keep it until it
// expired: after a bulk delete of a flooding key's jobs the key read `in_flight: 10` for 75 s, and
// the key's next jobs waited that long.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { currentRunsOf, dispatchButLose, shardStub, targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

/** Well under the permit's own lease (30 s): a permit seen back within this was returned. */
const RETURNED_WITHIN = { timeout: 5_000, interval: 100 };

async function keyInFlight(t: TenantWithKey, key: string): Promise<number> {
  const res = await api<{ in_flight: number }>("GET", `/v1/flow-control/${key}`, { token: t.key });
  expect(res.status).toBe(200);
  return res.body.in_flight;
}

/** A job of `key` (parallelism 1) whose run is sent, holds the key's permit, and is not called. */
async function sentJobHoldingPermit(t: TenantWithKey, key: string): Promise<string> {
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: t.key,
    body: {
      name: `holds-${key}`,
      schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${key}`) },
      flow_control: { key, parallelism: 1 },
    },
  });
  expect(created.status).toBe(201);
  await dispatchButLose([created.body.id]);
  const runs = await currentRunsOf<{ state: string }>(created.body.id, ["state"]);
  expect(runs.map((run) => run.state)).toEqual(["DISPATCHED"]);
  expect(await keyInFlight(t, key)).toBe(1);
  return created.body.id;
}

describe("flow-control permits of runs cancelled before their call", () => {
  it("come back when the job is deleted", async () => {
    const t = await createTenantWithKey("permit-delete");
    const jobId = await sentJobHoldingPermit(t, "del-key");
    expect((await api("DELETE", `/v1/jobs/${jobId}`, { token: t.key })).status).toBe(200);
    await vi.waitFor(async () => expect(await keyInFlight(t, "del-key")).toBe(0), RETURNED_WITHIN);
    const [run] = await currentRunsOf<{ state: string; run_id: string; fence: number }>(jobId, [
      "state",
      "run_id",
      "fence",
    ]);
    expect(run?.state).toBe("CANCELLED");
    // Its message, were it delivered now, is refused as cancelled (not as a duplicate).
    const shard = shardOfJob(env, jobId);
    const claims = await shardStub(shard).claimRuns(shard, [
      { runId: run?.run_id as string, jobId, fence: run?.fence as number },
    ]);
    expect(claims).toEqual([{ ok: false, runId: run?.run_id, code: "cancelled" }]);
  });

  it("come back when the job is paused", async () => {
    const t = await createTenantWithKey("permit-pause");
    const jobId = await sentJobHoldingPermit(t, "pause-key");
    expect((await api("POST", `/v1/jobs/${jobId}/pause`, { token: t.key })).status).toBe(200);
    await vi.waitFor(async () => expect(await keyInFlight(t, "pause-key")).toBe(0), RETURNED_WITHIN);
  });

  it("come back when the tenant is suspended", async () => {
    const t = await createTenantWithKey("permit-suspend");
    await sentJobHoldingPermit(t, "suspend-key");
    expect((await api("POST", `/v1/tenants/${t.tenantId}/suspend`, {})).status).toBe(200);
    await vi.waitFor(async () => expect(await keyInFlight(t, "suspend-key")).toBe(0), RETURNED_WITHIN);
  });
});
