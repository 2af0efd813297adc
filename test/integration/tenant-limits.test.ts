// Tenant limits over HTTP: the admin sets them, the tenant reads its own, and a create over a
// limit is refused with 429 naming the limit and Retry-After, storing nothing.
import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { countJobs } from "../helpers/job-databases";

// Created jobs arm their shards' alarms (far-future instants): delete them after each test.
disarmShardsAfterEach();

interface Limits {
  tenant_id: string;
  active_jobs: number | null;
  creates_per_second: number | null;
  triggers_per_second: number | null;
  concurrent_calls: number | null;
  overridden: string[];
  defaults: Record<string, number | null>;
}
interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

async function jobCount(tenantId: string): Promise<number> {
  return countJobs("WHERE tenant_id = ?", tenantId);
}

describe("tenant limits", () => {
  it("start at the deployment defaults and are replaced by the admin's PUT", async () => {
    const t = await createTenantWithKey("limits");
    const initial = await api<Limits>("GET", `/v1/tenants/${t.tenantId}/limits`);
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      tenant_id: t.tenantId,
      active_jobs: 100_000,
      creates_per_second: 2_000,
      triggers_per_second: null,
      concurrent_calls: null,
      overridden: [],
      dispatch: null,
    });
    const put = await api<Limits>("PUT", `/v1/tenants/${t.tenantId}/limits`, {
      body: { active_jobs: 3, triggers_per_second: 5, creates_per_second: null },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      active_jobs: 3,
      creates_per_second: null,
      triggers_per_second: 5,
      concurrent_calls: null,
      overridden: ["active_jobs", "creates_per_second", "triggers_per_second"],
      defaults: { active_jobs: 100_000, creates_per_second: 2_000 },
      dispatch: { waiting: 0, in_flight: 0, triggers_in_window: 0 },
    });
    // The tenant reads its own limits; it may not set them, nor read another tenant's.
    const own = await api<Limits>("GET", `/v1/tenants/${t.tenantId}/limits`, { token: t.key });
    expect(own.body.active_jobs).toBe(3);
    const refused = await api<Problem>("PUT", `/v1/tenants/${t.tenantId}/limits`, { token: t.key, body: {} });
    expect(refused.status).toBe(403);
    const other = await createTenantWithKey("limits-other");
    const foreign = await api<Problem>("GET", `/v1/tenants/${t.tenantId}/limits`, { token: other.key });
    expect(foreign.status).toBe(404);
  });

  it("refuses a bad PUT naming every bad field, and changes nothing", async () => {
    const t = await createTenantWithKey("limits-bad");
    const res = await api<Problem>("PUT", `/v1/tenants/${t.tenantId}/limits`, {
      body: { active_jobs: 0, creates_per_second: 1.5, concurrent_calls: "ten", extra: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body.errors?.map((error) => error.path).sort()).toEqual([
      "active_jobs",
      "concurrent_calls",
      "creates_per_second",
      "extra",
    ]);
    const after = await api<Limits>("GET", `/v1/tenants/${t.tenantId}/limits`);
    expect(after.body.overridden).toEqual([]);
  });

  it("refuses a create over active_jobs with 429, Retry-After and the limit's name; nothing is stored", async () => {
    const t = await createTenantWithKey("limits-active");
    await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { active_jobs: 2 } });
    for (let i = 0; i < 2; i += 1) {
      expect((await api("POST", "/v1/jobs", { token: t.key, body: jobBody() })).status).toBe(201);
    }
    const over = await api<Problem>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    expect(over.status).toBe(429);
    expect(over.headers.get("content-type")).toContain("application/problem+json");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.body.code).toBe("tenant_limit_exceeded");
    expect(over.body.errors?.[0]?.path).toBe("limits.active_jobs");
    expect(await jobCount(t.tenantId)).toBe(2);
    // Invalid input is still a 400 naming its fields, not a 429.
    const bad = await api<Problem>("POST", "/v1/jobs", { token: t.key, body: jobBody({ name: "" }) });
    expect(bad.status).toBe(400);
  });

  it("refuses a whole batch that would pass active_jobs, storing none of it", async () => {
    const t = await createTenantWithKey("limits-batch");
    await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { active_jobs: 5 } });
    const res = await api<Problem>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: { jobs: Array.from({ length: 6 }, () => jobBody()) },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).not.toBeNull();
    expect(res.body.errors?.[0]?.path).toBe("limits.active_jobs");
    expect(await jobCount(t.tenantId)).toBe(0);
    const fits = await api<{ created: number }>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: { jobs: Array.from({ length: 5 }, () => jobBody()) },
    });
    expect(fits.body.created).toBe(5);
  });

  it("refuses creates past creates_per_second with Retry-After: 1, counting across requests", async () => {
    const t = await createTenantWithKey("limits-rate");
    await api("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { creates_per_second: 3 } });
    // Concurrent creates, from the top of a second: the window is counted atomically in D1.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const startS = Math.floor(Date.now() / 1000);
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api<Problem>("POST", "/v1/jobs", { token: t.key, body: jobBody() })),
    );
    const windows = Math.floor(Date.now() / 1000) - startS + 1;
    const statuses = responses.map((res) => res.status);
    const refusal = responses.find((res) => res.status === 429) ?? null;
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(3 * windows);
    expect(statuses).toContain(429);
    expect(refusal?.headers.get("retry-after")).toBe("1");
    expect(refusal?.body.errors?.[0]?.path).toBe("limits.creates_per_second");
    expect(await jobCount(t.tenantId)).toBe(statuses.filter((status) => status === 201).length);
    // A batch larger than the limit can never pass: it says so.
    const batch = await api<Problem>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: { jobs: Array.from({ length: 4 }, () => jobBody()) },
    });
    expect(batch.status).toBe(429);
    expect(batch.body.detail).toContain("smaller batches");
  });
});
