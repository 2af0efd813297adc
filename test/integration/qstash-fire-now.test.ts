// The shard's fire-now operation (POST /v2/messages/{id}/retry): a waiting one-shot job fires at
// once as its own instant's run, so the instant is its idempotency key and nothing is left to fire
// later; a job that is paused, unknown or has nothing waiting is refused.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { runIdFor } from "../../src/core/runs/run-id";
import { fireJobNow } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";

disarmShardsAfterEach();

interface JobTimer {
  next_scheduled_ms: number | null;
  next_fire_ms: number | null;
  status: string;
}

async function onceJob(label: string, atMs: number, status: "ACTIVE" | "PAUSED" = "ACTIVE") {
  await seedTenant();
  const jobId = uniqueJobId(label);
  const path = `/ok/fire-now-${jobId}`;
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(atMs).toISOString() },
    target: { url: targetUrl(path) },
  });
  const shard = await placeJob(snapshot(jobId, jobSpec, 1, status));
  return { jobId, shard, path };
}

const timerOf = async (jobId: string) =>
  (
    await shardRows<JobTimer>(
      jobId,
      "SELECT next_scheduled_ms, next_fire_ms, status FROM jobs WHERE job_id = ?",
      jobId,
    )
  )[0];

describe("fireJobNow", () => {
  it("fires a waiting one-shot job now as its instant's run, and leaves nothing to fire later", async () => {
    const instantMs = Date.now() + 3_600_000;
    const { jobId, shard, path } = await onceJob("fire-now", instantMs);
    const beforeMs = Date.now();
    expect(await fireJobNow(env, shard, jobId)).toEqual({ ok: true, runIds: [runIdFor(jobId, instantMs)] });
    const moved = await timerOf(jobId);
    // Due now, the shard's own alarm may ring before this read and fire it (then it is COMPLETED,
    // checked below); if not yet, the timer shows the instant kept and the fire time moved to now.
    if (moved?.status === "ACTIVE") {
      expect(moved.next_scheduled_ms).toBe(instantMs);
      expect(moved.next_fire_ms).toBeGreaterThanOrEqual(beforeMs);
      expect(moved.next_fire_ms).toBeLessThanOrEqual(Date.now());
    }
    await runDurableObjectAlarm(stubFor(jobId));
    const runs = await shardRows<{ run_id: string; scheduled_at_ms: number }>(
      jobId,
      "SELECT run_id, scheduled_at_ms FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(runs).toEqual([{ run_id: runIdFor(jobId, instantMs), scheduled_at_ms: instantMs }]);
    expect(await timerOf(jobId)).toMatchObject({ next_fire_ms: null, status: "COMPLETED" });
    const calls = await vi.waitFor(async () => {
      const found = await targetCalls(path);
      expect(found).toHaveLength(1);
      return found;
    }, WAIT);
    expect(calls[0]?.headers["idempotency-key"]).toBe(`${jobId}:${new Date(instantMs).toISOString()}`);
    // Fired: a second request finds nothing waiting, and fires nothing.
    expect(await fireJobNow(env, shard, jobId)).toEqual({ ok: false, code: "nothing_waiting" });
  });

  it("refuses a paused or unknown job, changing nothing", async () => {
    const instantMs = Date.now() + 3_600_000;
    const { jobId, shard } = await onceJob("fire-now-paused", instantMs, "PAUSED");
    const before = await timerOf(jobId);
    expect(await fireJobNow(env, shard, jobId)).toEqual({ ok: false, code: "job_not_active" });
    expect(await timerOf(jobId)).toEqual(before);
    expect(await fireJobNow(env, shard, "job_fire_now_unknown")).toEqual({
      ok: false,
      code: "job_not_found",
    });
  });
});
