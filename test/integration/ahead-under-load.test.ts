// Dispatch ahead while a shard's window is full (durable-objects/shard/dispatch/ahead.ts,
// queueAheadWithinShares) and the consumer's hold of runs sent ahead (src/delivery/dispatch-consumer.ts):
// a tenant under its share still has its instants sent ahead, and a message held to its instant
// does not hold the queue behind it.

import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { queueAheadInPass } from "../../durable-objects/shard/dispatch/ahead";
import type { ShardScheduler } from "../../durable-objects/shard/shard-scheduler";
import { shardOfJob } from "../../src/shard/client";
import { type AheadJob, aheadJob, shardRunsOf, waitQueuedAhead, waitSucceeded } from "../helpers/ahead";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { holdBudgetFull } from "../helpers/backlog";
import { placeJob, seedTenant, stubFor, targetCalls } from "../helpers/scheduling";

disarmShardsAfterEach();

const FLOODER_TENANT = "ten_ahead_flooder";
const LEAD_MS = 5_000;

/** A job like `aheadJob` on the same shard as `beside`. */
function aheadJobBeside(beside: AheadJob, label: string, inMs: number): AheadJob {
  let job = aheadJob(label, inMs);
  while (shardOfJob(env, job.jobId) !== shardOfJob(env, beside.jobId)) job = aheadJob(label, inMs);
  return job;
}

describe("dispatch ahead while the window is full", () => {
  beforeAll(async () => {
    await seedTenant();
    await seedTenant(FLOODER_TENANT);
  });

  it("sends a tenant's instant ahead within its share while another tenant fills the window", async () => {
    const victim = aheadJob("share", 4_000);
    const flooder = aheadJobBeside(victim, "share-flooder", 4_000);
    const release = await holdBudgetFull(victim.jobId, FLOODER_TENANT);
    await placeJob({ ...flooder.job, tenantId: FLOODER_TENANT });
    await placeJob(victim.job);
    await runDurableObjectAlarm(stubFor(victim.jobId));
    // The window is full of the other tenant's runs, but this tenant has none in flight here: its
    // instant goes ahead, to be held by the consumer until it comes, as when it is alone.
    await waitQueuedAhead(victim);
    // The tenant over its share sends nothing ahead: its instant waits for room.
    expect(await shardRunsOf(flooder.jobId)).toEqual([]);
    const done = await waitSucceeded(victim.jobId);
    expect(done.events_json).toContain("queued ahead of its instant");
    const [call] = await targetCalls(victim.path);
    expect(call!.receivedAtMs).toBeGreaterThanOrEqual(victim.atMs);
    await release();
    await waitSucceeded(flooder.jobId);
  });

  it("holds a message sent ahead off its batch: the runs queued after it are called before its instant", async () => {
    const held = aheadJob("held-off", 4_000);
    const release = await holdBudgetFull(held.jobId, FLOODER_TENANT);
    await placeJob(held.job);
    await runDurableObjectAlarm(stubFor(held.jobId));
    // Sent while the window is full: delivered at once, so the consumer has seconds to hold it.
    await waitQueuedAhead(held);
    const behind = aheadJobBeside(held, "held-behind", 0);
    await placeJob(behind.job);
    await waitSucceeded(behind.jobId);
    const [behindCall] = await targetCalls(behind.path);
    // The local queue starts its next batch only when the previous one has ended: held in its
    // batch, the first message kept the second one until its own instant.
    expect(behindCall!.receivedAtMs).toBeLessThan(held.atMs - 1_000);
    await waitSucceeded(held.jobId);
    const [heldCall] = await targetCalls(held.path);
    expect(heldCall!.receivedAtMs).toBeGreaterThanOrEqual(held.atMs);
    await release();
  });

  describe("with the window full, a pass queues ahead", () => {
    /**
     * One pass's ahead step for a job due a minute from now, seen from 2 s before its instant (time
     * is a parameter), the window full: returns how many runs it queued. The job is paused after,
     * which drops what was queued.
     */
    async function queuedAhead(
      label: string,
      pass: { scanDue: boolean; fired: boolean; shareLeft: number },
    ): Promise<number> {
      const job = aheadJob(label, 60_000);
      await placeJob(job.job);
      const queued = await runInDurableObject(stubFor(job.jobId), (instance: ShardScheduler) =>
        queueAheadInPass(
          instance.state,
          { leadMs: LEAD_MS, shareScanDue: () => pass.scanDue },
          job.atMs - 2_000,
          {
            room: 0,
            shareLeftOf: () => pass.shareLeft,
            firedJobIds: pass.fired ? [job.jobId] : [],
          },
        ),
      );
      await placeJob({ ...job.job, version: 2, status: "PAUSED" });
      return queued.runs.length;
    }

    it("the next instant of a job it fired, every pass, for a tenant under its share", async () => {
      expect(await queuedAhead("fired", { scanDue: false, fired: true, shareLeft: 1 })).toBe(1);
    });

    it("other jobs' instants only when a look through the lead window is due", async () => {
      expect(await queuedAhead("unfired", { scanDue: false, fired: false, shareLeft: 1 })).toBe(0);
      expect(await queuedAhead("scanned", { scanDue: true, fired: false, shareLeft: 1 })).toBe(1);
    });

    it("nothing of a tenant over its share", async () => {
      expect(await queuedAhead("over-share", { scanDue: true, fired: true, shareLeft: 0 })).toBe(0);
    });
  });
});
