// A shard restarts from its checkpoint and the journal after it (durable-objects/shard/state/
// shard-state.ts, restore): the checkpoint's older record of a job is replaced by the journal's.
// A restart must not fire again an instant the journal says was fired: the old record's timer
// entry staying current did exactly that to every one-shot fired since the checkpoint (a CI
// rehearsal of the crash e2e saw 1,713 of 1,794 calls made again after a SIGKILL).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  placeJob,
  seedTenant,
  snapshot,
  spec,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { jobRecordOf, liveRunsOf, withShardState } from "../helpers/shard-state";

disarmShardsAfterEach();

beforeAll(async () => {
  await seedTenant();
});

describe("a shard restored from its checkpoint and journal", () => {
  it("does not fire again an instant fired after the checkpoint", async () => {
    const jobId = uniqueJobId("restore-fired");
    // A one-shot a second away: once fired, its record has no timer left.
    const atMs = Date.now() + 1_000;
    const schedule = { type: "once" as const, at: new Date(atMs).toISOString() };
    await placeJob(snapshot(jobId, spec({ schedule, target: { url: targetUrl(`/ok/${jobId}`) } })));
    // The checkpoint holds the job with its timer set; the firing that follows is in the journal only.
    await withShardState(stubFor(jobId), (state) => state.checkpoint());
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(atMs), WAIT);
    await runDurableObjectAlarm(stubFor(jobId));
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1), WAIT);
    await vi.waitFor(async () => expect(await liveRunsOf(jobId)).toEqual([]), WAIT);
    const fired = await jobRecordOf(jobId);
    expect(fired?.next_fire_ms).toBeNull();

    await runInDurableObject(stubFor(jobId), (_instance, state) => state.abort("restart")).catch(() => {});
    // Restored: the journal's record (fired, no timer) is the one the wheel reads, not the checkpoint's.
    const due = await withShardState(stubFor(jobId), (state) =>
      state.jobs.due(Date.now(), 1_000).filter((job) => job.job_id === jobId),
    );
    expect(due).toEqual([]);
    await runDurableObjectAlarm(stubFor(jobId));
    expect(await liveRunsOf(jobId)).toEqual([]);
    expect((await jobRecordOf(jobId))?.fired_through_ms).toBe(fired?.fired_through_ms);
    expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1);
  });
});
