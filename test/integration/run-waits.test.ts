// Why a run waits, and whose its lateness is: real runs held by a flow-control key and by an
// overlap buffer (real alarms, queue, consumer and a slow target), read back as the API and the
// console show them.
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";
import { targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

const WAIT_LONG = { timeout: 25_000, interval: 100 };

interface Run {
  id: string;
  state: string;
  lateness_ms: number | null;
  lateness: { scheduler_ms: number; policy_ms: number; policy: string | null } | null;
  waiting: { cause: string; reason: string; since: string | null } | null;
  events: { state: string; reason: string }[];
}

async function runsOf(t: TenantWithKey, jobId: string): Promise<Run[]> {
  const res = await api<{ data: Run[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: t.key });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function runOf(t: TenantWithKey, runId: string): Promise<Run> {
  const res = await api<Run>("GET", `/v1/runs/${runId}`, { token: t.key });
  expect(res.status).toBe(200);
  return res.body;
}

/** The first run of `jobIds` that waits for `cause`, polled until one does. */
async function waitingRun(t: TenantWithKey, jobIds: string[], cause: string): Promise<Run> {
  return vi.waitFor(async () => {
    const runs = (await Promise.all(jobIds.map((id) => runsOf(t, id)))).flat();
    const held = runs.find((run) => run.waiting?.cause === cause);
    expect(held, JSON.stringify(runs)).toBeDefined();
    return held as Run;
  }, WAIT_LONG);
}

async function succeeded(t: TenantWithKey, runId: string): Promise<Run> {
  return vi.waitFor(async () => {
    const run = await runOf(t, runId);
    expect(run.state).toBe("SUCCEEDED");
    return run;
  }, WAIT_LONG);
}

async function consolePage(t: TenantWithKey, path: string): Promise<string> {
  const client = new ConsoleClient();
  await client.signIn(t.key);
  return (await client.get(path)).text.replaceAll("&quot;", '"');
}

describe("a run held by its flow-control key", () => {
  it("says it waits for a permit of the key, and its lateness is the key's, not the scheduler's", async () => {
    const t = await createTenantWithKey("waits-flow");
    const at = new Date(Date.now() + 2_000).toISOString();
    const created = await api<{ results: { job: { id: string } }[] }>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: {
        jobs: [0, 1].map((index) => ({
          name: `held-${index}`,
          schedule: { type: "once", at },
          target: { url: targetUrl(`/slow/2500/waits-flow-${t.tenantId}/${index}`) },
          flow_control: { key: "explain-key", parallelism: 1 },
        })),
      },
    });
    const jobIds = created.body.results.map((result) => result.job.id);
    const held = await waitingRun(t, jobIds, "flow_control");
    expect(held.state).toBe("SCHEDULED");
    expect(held.waiting?.reason).toBe('flow control key "explain-key": waiting for a permit (1 in flight)');
    expect(held.lateness).toBeNull();
    // The console says it where the run is shown: its page, and its job's runs.
    expect(await consolePage(t, `/console/runs/${held.id}`)).toContain(
      'flow control key "explain-key": waiting for a permit (1 in flight)',
    );
    const jobId = jobIds.find((id) => held.id.includes(id.replace(/^job_/, ""))) as string;
    expect(await consolePage(t, `/console/jobs/${jobId}`)).toMatch(
      /data-waiting="flow_control">flow control key "explain-key": waiting for a permit/,
    );

    const done = await succeeded(t, held.id);
    expect(done.waiting).toBeNull();
    expect(done.lateness?.policy).toBe("flow_control");
    // It waited for the other call (2.5 s); the scheduler's own part is what came after the permit.
    expect(done.lateness?.policy_ms).toBeGreaterThanOrEqual(1_500);
    expect(done.lateness?.scheduler_ms).toBeLessThan(1_000);
    expect((done.lateness?.policy_ms ?? 0) + (done.lateness?.scheduler_ms ?? 0)).toBe(done.lateness_ms);

    const stats = await api<{
      lateness_ms: { p99: number };
      scheduler_lateness_ms: { p99: number; count: number };
      policy_wait_ms: { count: number; by_cause: Record<string, { count: number; p99: number }> };
    }>("GET", "/v1/stats", { token: t.key });
    expect(stats.body.scheduler_lateness_ms.count).toBe(2);
    expect(stats.body.scheduler_lateness_ms.p99).toBeLessThan(1_000);
    expect(stats.body.lateness_ms.p99).toBeGreaterThanOrEqual(1_500);
    expect(stats.body.policy_wait_ms.by_cause.flow_control?.count).toBe(1);
    expect(stats.body.policy_wait_ms.by_cause.flow_control?.p99).toBe(done.lateness?.policy_ms);
    const overview = await consolePage(t, "/console");
    expect(overview).toMatch(/<li data-cause="flow_control">flow control key: 1 run, p99 \d/);
  });
});

describe("a run held by its job's overlap buffer", () => {
  it("says it waits for the previous run, and its lateness is the buffer's", async () => {
    const t = await createTenantWithKey("waits-overlap");
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      token: t.key,
      body: {
        name: "buffered",
        schedule: { type: "interval", every: "1s" },
        target: { url: targetUrl(`/slow/2500/waits-overlap-${t.tenantId}`) },
        overlap: "buffer_one",
      },
    });
    expect(job.status).toBe(201);
    const held = await waitingRun(t, [job.body.id], "overlap");
    expect(held.state).toBe("SCHEDULED");
    expect(held.waiting?.reason).toBe("overlap buffer_one: waiting for the previous run");
    expect(await consolePage(t, `/console/runs/${held.id}`)).toContain(
      "overlap buffer_one: waiting for the previous run",
    );

    const done = await succeeded(t, held.id);
    await api("DELETE", `/v1/jobs/${job.body.id}`, { token: t.key });
    expect(done.events.map((event) => event.reason)).toContain(
      "overlap buffer_one: the previous run ended, sent now",
    );
    expect(done.lateness?.policy).toBe("overlap");
    expect(done.lateness?.policy_ms).toBeGreaterThanOrEqual(500);
    expect(done.lateness?.scheduler_ms).toBeLessThan(1_000);
    expect(await consolePage(t, `/console/runs/${held.id}`)).toMatch(/ours \d+ ms · overlap buffer \d/);
  });
});

describe("a run held by its tenant's limits", () => {
  it("says it waits for a permit of the tenant's concurrent calls, and its lateness is theirs", async () => {
    const t = await createTenantWithKey("waits-tenant");
    await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { concurrent_calls: 1 } });
    const at = new Date(Date.now() + 2_000).toISOString();
    const created = await api<{ results: { job: { id: string } }[] }>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: {
        jobs: [0, 1].map((index) => ({
          name: `tenant-held-${index}`,
          schedule: { type: "once", at },
          target: { url: targetUrl(`/slow/2500/waits-tenant-${t.tenantId}/${index}`) },
        })),
      },
    });
    const held = await waitingRun(
      t,
      created.body.results.map((result) => result.job.id),
      "tenant_limits",
    );
    expect(held.waiting?.reason).toBe("tenant limits: waiting for a permit (1 concurrent call)");
    const done = await succeeded(t, held.id);
    expect(done.lateness?.policy).toBe("tenant_limits");
    expect(done.lateness?.policy_ms).toBeGreaterThanOrEqual(1_500);
    expect(done.lateness?.scheduler_ms).toBeLessThan(1_000);
  });
});
