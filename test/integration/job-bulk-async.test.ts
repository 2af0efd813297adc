// The large form of POST /v1/jobs/bulk (src/api/job-bulk-async.ts): more than 5,000 jobs to change
// answers 202 with an operation whose progress GET /v1/jobs/bulk/{id} reads until every job is in
// the action's state; another tenant cannot read it.
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";

disarmShardsAfterEach();

interface Operation {
  id: string;
  action: string;
  matched: number;
  done: number;
  state: string;
  status_url: string;
}

async function createJobs(key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 1_000) {
    const jobs = Array.from({ length: Math.min(1_000, count - start) }, (_, i) =>
      jobBody({ name: `big-${start + i}` }),
    );
    const batch = await api<{ created: number; results: { job: { id: string } }[] }>(
      "POST",
      "/v1/jobs/batch",
      {
        token: key,
        body: { jobs },
      },
    );
    expect(batch.body.created).toBe(jobs.length);
    ids.push(...batch.body.results.map((result) => result.job.id));
  }
  return ids;
}

describe("POST /v1/jobs/bulk over 5,000 jobs", () => {
  it("answers 202 with an operation whose progress reaches every job", async () => {
    const tenant = await createTenantWithKey("bulk-big");
    const other = await createTenantWithKey("bulk-big-other");
    // 5,001 creates in a few seconds: past the default creates_per_second.
    await api("PUT", `/v1/tenants/${tenant.tenantId}/limits`, { body: { creates_per_second: null } });
    const ids = await createJobs(tenant.key, 5_001);

    const started = await api<Operation>("POST", "/v1/jobs/bulk", {
      token: tenant.key,
      body: { action: "pause", filter: { name_prefix: "big-" } },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ action: "pause", matched: 5_001 });
    expect(started.body.id).toMatch(/^bop_/);
    expect(started.headers.get("location")).toBe(`/v1/jobs/bulk/${started.body.id}`);
    expect(started.body.status_url).toBe(`/v1/jobs/bulk/${started.body.id}`);

    const finished = await vi.waitFor(
      async () => {
        const read = await api<Operation>("GET", started.body.status_url, { token: tenant.key });
        expect(read.status).toBe(200);
        expect(read.body.state).toBe("succeeded");
        return read.body;
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(finished).toMatchObject({ matched: 5_001, done: 5_001 });
    for (const id of [ids[0], ids[5_000]]) {
      const job = await api<{ status: string }>("GET", `/v1/jobs/${id}`, { token: tenant.key });
      expect(job.body.status).toBe("PAUSED");
    }
    // Repeating it finds every job paused and confirmed: answered at once.
    const again = await api("POST", "/v1/jobs/bulk", {
      token: tenant.key,
      body: { action: "pause", filter: { name_prefix: "big-" } },
    });
    expect(again).toMatchObject({ status: 200, body: { matched: 5_001, done: 5_001 } });

    const foreign = await api<{ code: string }>("GET", started.body.status_url, { token: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("bulk_operation_not_found");
    await api("POST", "/v1/jobs/bulk", { token: tenant.key, body: { action: "delete", all: true } });
  }, 120_000);
});
