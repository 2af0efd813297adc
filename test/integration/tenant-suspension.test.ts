// Tenant suspension (src/api/v1/routes/tenant-suspension.ts, durable-objects/shard/job-changes/suspension.ts):
// once the suspend answered, no call of the tenant starts (queued runs cancelled, any claim of it
// refused, its timers parked), what would start work answers 409, and unsuspending loses nothing: instants
// that passed go through the job's misfire policy.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardOfJob } from "../../src/shard/client";
import type { ClaimResult } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { dispatchButLose, setFaultsOf, shardRows, stubFor } from "../helpers/scheduling";
import { patchJobOf } from "../helpers/shard-state";

disarmShardsAfterEach();

interface RunRow {
  run_id: string;
  fence: number;
  state: string;
  scheduled_at_ms: number;
}

const runsOf = (jobId: string) =>
  shardRows<RunRow>(
    jobId,
    "SELECT run_id, fence, state, scheduled_at_ms FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
    jobId,
  );

function claim(jobId: string, run: RunRow): Promise<ClaimResult[]> {
  return stubFor(jobId).claimRuns(shardOfJob(env, jobId), [{ runId: run.run_id, fence: run.fence, jobId }]);
}

async function createJob(
  key: string,
  label: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: key,
    body: jobBody({ name: label, ...overrides }),
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe("suspending a tenant", () => {
  it("cancels its queued run, refuses creates with 409, and refuses any claim of it", async () => {
    const tenant = await createTenantWithKey("suspend");
    const jobId = await createJob(tenant.key, "queued");
    await dispatchButLose([jobId]);
    const [queued] = await runsOf(jobId);
    expect(queued?.state).toBe("DISPATCHED");

    const suspended = await api<{ suspended_at: string | null }>(
      "POST",
      `/v1/tenants/${tenant.tenantId}/suspend`,
    );
    expect(suspended.status).toBe(200);
    expect(suspended.body.suspended_at).not.toBeNull();
    const [refused] = await claim(jobId, queued as RunRow);
    expect(refused?.ok).toBe(false);

    const create = await api<{ code: string }>("POST", "/v1/jobs", { token: tenant.key, body: jobBody() });
    expect(create.status).toBe(409);
    expect(create.body.code).toBe("tenant_suspended");

    // Something fires anyway (a timer set behind the suspension's back): its claim is refused.
    await dispatchButLose([jobId]);
    const fresh = (await runsOf(jobId)).find((run) => run.state === "DISPATCHED");
    expect(fresh).toBeDefined();
    const [result] = await claim(jobId, fresh as RunRow);
    expect(result).toMatchObject({ ok: false, code: "tenant_suspended" });
  });

  it("parks the timers; unsuspending fires the missed instant by the misfire policy", async () => {
    const tenant = await createTenantWithKey("unsuspend");
    const atMs = Date.now() + 3_600_000;
    const jobId = await createJob(tenant.key, "parked", {
      schedule: { type: "once", at: new Date(atMs).toISOString() },
    });
    expect((await api("POST", `/v1/tenants/${tenant.tenantId}/suspend`)).status).toBe(200);
    const [parked] = await shardRows<{ next_fire_ms: number | null }>(
      jobId,
      "SELECT next_fire_ms FROM jobs WHERE job_id = ?",
      jobId,
    );
    expect(parked?.next_fire_ms).toBeNull();
    // The instant passes while suspended: the alarm finds nothing of the tenant due.
    await patchJobOf(jobId, { parked_fire_ms: Date.now() - 5_000, next_scheduled_ms: Date.now() - 5_000 });
    await setFaultsOf(jobId, { dropDispatches: true });
    await runDurableObjectAlarm(stubFor(jobId));
    expect(await runsOf(jobId)).toEqual([]);

    const unsuspended = await api<{ suspended_at: string | null }>(
      "POST",
      `/v1/tenants/${tenant.tenantId}/unsuspend`,
    );
    expect(unsuspended.status).toBe(200);
    expect(unsuspended.body.suspended_at).toBeNull();
    // fire_now (the default): the missed instant runs once, now.
    const runs = await runsOf(jobId);
    expect(runs).toHaveLength(1);
    await setFaultsOf(jobId, {});
    expect((await createJob(tenant.key, "after")).length).toBeGreaterThan(0);
  });

  it("answers 404 for an unknown tenant and 401/403 for a tenant key", async () => {
    const tenant = await createTenantWithKey("not-admin");
    expect((await api("POST", "/v1/tenants/ten_01M8SYB9YZ6YWCSX50NDX0A2JX/suspend")).status).toBe(404);
    const asTenant = await api("POST", `/v1/tenants/${tenant.tenantId}/suspend`, { token: tenant.key });
    expect([401, 403]).toContain(asTenant.status);
  });
});
