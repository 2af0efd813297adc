// Control actions that must stop calls (src/service/control-push.ts): a DELETE or a pause answered
// 2xx means the shard knows, so the claim of any run already queued or sent ahead is refused,
// even when the shard refused the first pushes (an overloaded shard does now and then).
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { shardOfJob } from "../../src/shard/client";
import type { ClaimResult } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { dispatchButLose, setFaultsOf, shardRows, stubFor, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

interface RunRow {
  run_id: string;
  fence: number;
  state: string;
}

/** A job made through the API whose run the shard handed out and the queue still holds. */
async function jobWithQueuedRun(label: string) {
  const tenant = await createTenantWithKey(label);
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: tenant.key,
    body: jobBody({ name: label }),
  });
  expect(created.status).toBe(201);
  const jobId = created.body.id;
  await dispatchButLose([jobId]);
  const [run] = await shardRows<RunRow>(
    jobId,
    "SELECT run_id, fence, state FROM runs WHERE job_id = ?",
    jobId,
  );
  expect(run?.state).toBe("DISPATCHED");
  return { tenant, jobId, run: run as RunRow };
}

function claim(jobId: string, run: RunRow): Promise<ClaimResult[]> {
  return stubFor(jobId).claimRuns(shardOfJob(env, jobId), [{ runId: run.run_id, fence: run.fence, jobId }]);
}

async function syncedVersionOf(jobId: string): Promise<{ version: number; synced_version: number } | null> {
  return env.DB.prepare("SELECT version, synced_version FROM jobs WHERE id = ?")
    .bind(jobId)
    .first<{ version: number; synced_version: number }>();
}

describe("a control action answered 2xx stops the runs not yet started", () => {
  it("refuses the claim of a queued run once its DELETE answered, and D1 records the sync after", async () => {
    const { tenant, jobId, run } = await jobWithQueuedRun("delete-queued");
    const deleted = await api("DELETE", `/v1/jobs/${jobId}`, { token: tenant.key });
    expect(deleted.status).toBe(200);
    const [result] = await claim(jobId, run);
    expect(result?.ok).toBe(false);
    const [after] = await shardRows<RunRow>(
      jobId,
      "SELECT run_id, fence, state FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(after?.state).toBe("CANCELLED");
    await vi.waitFor(async () => {
      const row = await syncedVersionOf(jobId);
      expect(row?.synced_version).toBe(row?.version);
    }, WAIT);
  });

  it("refuses the claim of a queued run once its pause answered", async () => {
    const { tenant, jobId, run } = await jobWithQueuedRun("pause-queued");
    const paused = await api("POST", `/v1/jobs/${jobId}/pause`, { token: tenant.key });
    expect(paused.status).toBe(200);
    const [result] = await claim(jobId, run);
    expect(result?.ok).toBe(false);
  });

  it("retries inside the request: two refused pushes, and the DELETE's answer still means the shard knows", async () => {
    const { tenant, jobId, run } = await jobWithQueuedRun("delete-retried");
    await setFaultsOf(jobId, { failClaims: 2 });
    const deleted = await api("DELETE", `/v1/jobs/${jobId}`, { token: tenant.key });
    expect(deleted.status).toBe(200);
    const [result] = await claim(jobId, run);
    expect(result).toMatchObject({ ok: false });
    const [job] = await shardRows<{ status: string }>(
      jobId,
      "SELECT status FROM jobs WHERE job_id = ?",
      jobId,
    );
    expect(job?.status).toBe("DELETED");
  });
});
