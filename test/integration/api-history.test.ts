import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { seedAlert, seedDeadLetter, seedRun } from "../helpers/seed";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
type Resource = Record<string, unknown> & { id: string };

async function newJob(key: string): Promise<string> {
  const res = await api<{ id: string }>("POST", "/v1/jobs", { token: key, body: jobBody() });
  return res.body.id;
}

describe("runs", () => {
  it("lists a job's runs newest first with a cursor and reads one run", async () => {
    const t = await createTenantWithKey();
    const jobId = await newJob(t.key);
    const baseMs = Date.parse("2026-12-01T00:00:00Z");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(await seedRun({ jobId, tenantId: t.tenantId, scheduledAtMs: baseMs + i * 60_000 }));
    const first = await api<Page<Resource>>("GET", `/v1/jobs/${jobId}/runs?limit=5`, { token: t.key });
    expect(first.status).toBe(200);
    expect(first.body.data.map((r) => r.id)).toEqual(ids.slice(2).reverse());
    const second = await api<Page<Resource>>(
      "GET",
      `/v1/jobs/${jobId}/runs?limit=5&cursor=${first.body.next_cursor}`,
      {
        token: t.key,
      },
    );
    expect(second.body.data.map((r) => r.id)).toEqual(ids.slice(0, 2).reverse());
    expect(second.body.next_cursor).toBeNull();

    const run = await api<Resource>("GET", `/v1/runs/${ids[0]}`, { token: t.key });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      id: ids[0],
      job_id: jobId,
      kind: "schedule",
      scheduled_at: "2026-12-01T00:00:00.000Z",
      idempotency_key: `${jobId}:2026-12-01T00:00:00.000Z`,
      state: "SUCCEEDED",
      attempt: 1,
      max_attempts: 3,
      fence: 7,
      job_version: 1,
      target_status: 200,
      error: null,
      lateness_ms: 12,
      duration_ms: 40,
      next_attempt_at: null,
      events: [{ state: "SCHEDULED", at: "2026-12-01T00:00:00.000Z", reason: "due", attempt: 1 }],
    });
  });

  it("lists a tenant's runs filtered by state and job", async () => {
    const t = await createTenantWithKey();
    const jobA = await newJob(t.key);
    const jobB = await newJob(t.key);
    const failed = await seedRun({ jobId: jobA, tenantId: t.tenantId, state: "FAILED" });
    await seedRun({ jobId: jobA, tenantId: t.tenantId });
    const ofB = await seedRun({ jobId: jobB, tenantId: t.tenantId });
    const byState = await api<Page<Resource>>("GET", "/v1/runs?state=FAILED", { token: t.key });
    expect(byState.body.data.map((r) => r.id)).toEqual([failed]);
    const byJob = await api<Page<Resource>>(`GET`, `/v1/runs?job_id=${jobB}`, { token: t.key });
    expect(byJob.body.data.map((r) => r.id)).toEqual([ofB]);
    expect((await api("GET", "/v1/runs?state=NAPPING", { token: t.key })).status).toBe(400);
    expect((await api("GET", "/v1/runs?cursor=bm9wZQ", { token: t.key })).status).toBe(400);
  });
});

describe("tenant isolation", () => {
  it("answers 404 for another tenant's job, run and dead letter, and hides them from lists", async () => {
    const a = await createTenantWithKey("iso-a");
    const b = await createTenantWithKey("iso-b");
    const jobId = await newJob(a.key);
    const runId = await seedRun({ jobId, tenantId: a.tenantId, state: "DEAD_LETTERED" });
    const letterId = await seedDeadLetter({ tenantId: a.tenantId, jobId, runId });
    await seedAlert({ tenantId: a.tenantId, jobId });

    for (const [method, path] of [
      ["GET", `/v1/jobs/${jobId}`],
      ["GET", `/v1/jobs/${jobId}/runs`],
      ["PATCH", `/v1/jobs/${jobId}`],
      ["DELETE", `/v1/jobs/${jobId}`],
      ["POST", `/v1/jobs/${jobId}/pause`],
      ["POST", `/v1/jobs/${jobId}/resume`],
      ["POST", `/v1/jobs/${jobId}/trigger`],
      ["GET", `/v1/runs/${runId}`],
      ["POST", `/v1/runs/${runId}/retry`],
      ["POST", `/v1/dead-letters/${letterId}/redrive`],
    ] as const) {
      const body = method === "PATCH" ? { name: "stolen" } : undefined;
      const res = await api<{ code: string }>(method, path, { token: b.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    for (const path of ["/v1/jobs", "/v1/runs", "/v1/dead-letters", "/v1/alerts"]) {
      const res = await api<Page<Resource>>("GET", path, { token: b.key });
      expect(res.body.data, path).toEqual([]);
      const own = await api<Page<Resource>>("GET", path, { token: a.key });
      expect(own.body.data.length, path).toBe(1);
    }
    // The job is untouched.
    const job = await api<Resource>("GET", `/v1/jobs/${jobId}`, { token: a.key });
    expect(job.body).toMatchObject({ status: "ACTIVE", version: 1 });
    const stats = await api<{ jobs_by_status: Record<string, number> }>("GET", "/v1/stats", { token: b.key });
    expect(stats.body.jobs_by_status.ACTIVE).toBe(0);
  });

  it("answers 404 (never 500) for ids that do not look like ids", async () => {
    const t = await createTenantWithKey();
    for (const path of [
      "/v1/jobs/nope",
      "/v1/jobs/job_%27%20OR%201%3D1",
      "/v1/jobs/job_0000000000000000000000000",
      "/v1/runs/%F0%9F%92%A5",
      `/v1/runs/${"r".repeat(300)}`,
      "/v1/runs/run_missing",
      "/v1/jobs/%E0%A4%A",
      "/v1/runs/%ZZ",
      "/v1/dead-letters/%ZZ/redrive",
    ]) {
      if (path.endsWith("/redrive")) {
        expect((await api("POST", path, { token: t.key })).status, path).toBe(404);
        continue;
      }
      expect((await api("GET", path, { token: t.key })).status, path).toBe(404);
    }
  });
});

describe("dead letters and alerts", () => {
  it("lists dead letters with their payload, filtered by job", async () => {
    const t = await createTenantWithKey();
    const jobA = await newJob(t.key);
    const jobB = await newJob(t.key);
    const runA = await seedRun({ jobId: jobA, tenantId: t.tenantId, state: "DEAD_LETTERED" });
    const runB = await seedRun({ jobId: jobB, tenantId: t.tenantId, state: "DEAD_LETTERED" });
    const letterA = await seedDeadLetter({
      tenantId: t.tenantId,
      jobId: jobA,
      runId: runA,
      createdAtMs: 1_000,
    });
    await seedDeadLetter({ tenantId: t.tenantId, jobId: jobB, runId: runB, createdAtMs: 2_000 });
    const all = await api<Page<Resource>>("GET", "/v1/dead-letters?limit=1", { token: t.key });
    expect(all.body.data).toHaveLength(1);
    expect(all.body.data[0]?.job_id).toBe(jobB);
    const rest = await api<Page<Resource>>("GET", `/v1/dead-letters?limit=1&cursor=${all.body.next_cursor}`, {
      token: t.key,
    });
    expect(rest.body.data.map((d) => d.id)).toEqual([letterA]);
    const onlyA = await api<Page<Resource>>("GET", `/v1/dead-letters?job_id=${jobA}`, { token: t.key });
    expect(onlyA.body.data).toEqual([
      {
        id: letterA,
        job_id: jobA,
        run_id: runA,
        attempt: 3,
        scheduled_at: "2026-12-01T00:00:00.000Z",
        reason: "exhausted",
        last_error: "HTTP 500",
        target_status: 500,
        payload: { method: "POST", url: "https://example.com/hook", headers: {}, body: { a: 1 } },
        created_at: new Date(1_000).toISOString(),
        redriven_at: null,
      },
    ]);
  });

  it("refuses to redrive a dead letter twice", async () => {
    const t = await createTenantWithKey();
    const jobId = await newJob(t.key);
    const runId = await seedRun({ jobId, tenantId: t.tenantId, state: "DEAD_LETTERED" });
    const letterId = await seedDeadLetter({ tenantId: t.tenantId, jobId, runId });
    await env.DB.prepare("UPDATE dead_letters SET redriven_at_ms = ? WHERE id = ?")
      .bind(Date.now(), letterId)
      .run();
    const res = await api<{ code: string }>("POST", `/v1/dead-letters/${letterId}/redrive`, { token: t.key });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("already_redriven");
  });

  it("lists alerts filtered by kind", async () => {
    const t = await createTenantWithKey();
    const jobId = await newJob(t.key);
    const missed = await seedAlert({ tenantId: t.tenantId, jobId, kind: "missed_run" });
    await seedAlert({ tenantId: t.tenantId, jobId, kind: "dead_lettered" });
    const res = await api<Page<Resource>>("GET", "/v1/alerts?kind=missed_run", { token: t.key });
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      id: missed,
      job_id: jobId,
      run_id: null,
      kind: "missed_run",
      message: "Job missed a run",
      details: { late_ms: 5 },
      delivered_at: null,
      resolved_at: null,
    });
  });
});

describe("GET /v1/stats", () => {
  it("counts jobs and runs, buckets triggers and failures per minute, and gives lateness percentiles", async () => {
    const t = await createTenantWithKey();
    const jobId = await newJob(t.key);
    await api("POST", `/v1/jobs/${await newJob(t.key)}/pause`, { token: t.key });
    const nowMs = Date.now();
    for (let i = 1; i <= 100; i++)
      await seedRun({ jobId, tenantId: t.tenantId, latenessMs: i, createdAtMs: nowMs - 1_000 });
    await seedRun({
      jobId,
      tenantId: t.tenantId,
      state: "DEAD_LETTERED",
      latenessMs: null,
      createdAtMs: nowMs - 1_000,
    });
    await seedRun({
      jobId,
      tenantId: t.tenantId,
      state: "SUCCEEDED",
      latenessMs: null,
      createdAtMs: nowMs - 1_000,
      events: [{ state: "FAILED", at_ms: nowMs, reason: "HTTP 500", attempt: 1 }],
    });
    // Outside the window: counted by state, not per minute or in lateness.
    await seedRun({ jobId, tenantId: t.tenantId, latenessMs: 99_999, createdAtMs: nowMs - 3 * 3_600_000 });

    const res = await api<{
      jobs_by_status: Record<string, number>;
      runs_by_state: Record<string, number>;
      per_minute: { minute: string; triggers: number; failures: number }[];
      lateness_ms: { p50: number; p90: number; p99: number; count: number };
    }>("GET", "/v1/stats", { token: t.key });
    expect(res.status).toBe(200);
    expect(res.body.jobs_by_status).toEqual({ ACTIVE: 1, PAUSED: 1, COMPLETED: 0, DELETED: 0 });
    expect(res.body.runs_by_state.SUCCEEDED).toBe(102);
    expect(res.body.runs_by_state.DEAD_LETTERED).toBe(1);
    expect(res.body.runs_by_state.RUNNING).toBe(0);
    expect(res.body.per_minute).toHaveLength(60);
    const totals = res.body.per_minute.reduce(
      (sum, m) => ({ triggers: sum.triggers + m.triggers, failures: sum.failures + m.failures }),
      { triggers: 0, failures: 0 },
    );
    expect(totals).toEqual({ triggers: 102, failures: 2 });
    expect(res.body.per_minute[59]?.minute).toBe(
      new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString(),
    );
    expect(res.body.lateness_ms).toEqual({ p50: 50, p90: 90, p99: 99, count: 100 });

    const asAdmin = await api<{ jobs_by_status: Record<string, number> }>("GET", "/v1/stats", {
      headers: { "edgecron-tenant": t.tenantId },
    });
    expect(asAdmin.body.jobs_by_status).toEqual(res.body.jobs_by_status);
    const global = await api<{ jobs_by_status: Record<string, number> }>("GET", "/v1/stats");
    expect(global.status).toBe(200);
    expect(global.body.jobs_by_status.ACTIVE).toBeGreaterThanOrEqual(1);
  });
});
