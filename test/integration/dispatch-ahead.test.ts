// Dispatch ahead of the instant (durable-objects/shard/dispatch/ahead.ts, src/delivery/hold.ts), through the
// real path: shard alarm -> queue (with a delivery delay) -> consumer hold -> claim -> target.
// wrangler.toml sets DISPATCH_LEAD_MS to 5 s, so a job due in 2-3 s is sent at once.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { dispatchLeadMs, tickSettings } from "../../durable-objects/shard/dispatch/pass-settings";
import {
  bundleByInstant,
  dispatchRuns,
  HOLD_SPREAD_MS,
} from "../../durable-objects/shard/dispatch/queue-hand-off";
import { insertRun } from "../../durable-objects/shard/state/run-moves";
import { verifyRunToken } from "../../src/core/runs/run-token";
import { fireJitterMs } from "../../src/core/schedules/jitter";
import { holdUntilMs } from "../../src/delivery/hold";
import { runTokenSecret } from "../../src/run-tokens";
import { shardOfJob } from "../../src/shard/client";
import type { ClaimResult, DispatchMessage, DispatchRun, ShardJob } from "../../src/shard/protocol";
import { aheadJob, shardRunsOf, waitQueuedAhead, waitSucceeded } from "../helpers/ahead";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { holdBudgetFull } from "../helpers/backlog";
import {
  historyOf,
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  statesOf,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables, withShardState } from "../helpers/shard-state";

disarmShardsAfterEach();

const LEAD_MS = dispatchLeadMs(env.DISPATCH_LEAD_MS);

async function push(job: ShardJob, version: number, changes: Partial<ShardJob> = {}): Promise<void> {
  await placeJob({ ...job, version, ...changes });
}

describe("dispatch ahead of the instant", () => {
  beforeAll(() => seedTenant());

  it("sends the run before its instant, lists it with its job's runs, and calls the target at the instant", async () => {
    const ahead = aheadJob("early", 2_500);
    await placeJob(ahead.job);
    const run = await waitQueuedAhead(ahead);
    // Queued ahead, the run is listed with its job's runs (not settled: no record in its history yet).
    expect(await historyOf(ahead.jobId)).toEqual([]);
    const listed = await stubFor(ahead.jobId).jobHistory(shardOfJob(env, ahead.jobId), {
      tenantId: ahead.job.tenantId,
      jobId: ahead.jobId,
      limit: 10,
    });
    expect(listed.map((record) => [record.id, record.state])).toEqual([[run.run_id, "DISPATCHED"]]);
    // A claim before the instant (a consumer that did not hold it) is refused and changes nothing.
    const claims: ClaimResult[] = await stubFor(ahead.jobId).claimRuns(shardOfJob(env, ahead.jobId), [
      { runId: run.run_id, fence: run.fence as number },
    ]);
    expect(claims).toEqual([{ ok: false, runId: run.run_id, code: "not_due" }]);
    expect((await shardRunsOf(ahead.jobId))[0]?.state).toBe("DISPATCHED");

    const done = await waitSucceeded(ahead.jobId);
    const calls = await targetCalls(ahead.path);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.receivedAtMs).toBeGreaterThanOrEqual(ahead.atMs);
    expect(statesOf(done)).toEqual(["SCHEDULED", "ACQUIRED", "DISPATCHED", "RUNNING", "SUCCEEDED"]);
    expect(done.events_json).toContain("queued ahead of its instant");
    const events = JSON.parse(done.events_json) as { state: string; at_ms: number }[];
    expect(events.find((event) => event.state === "RUNNING")!.at_ms).toBeGreaterThanOrEqual(ahead.atMs);
  });

  it("waits for room when the window is full before the instant, instead of ringing again at once", async () => {
    const ahead = aheadJob("no-room", 3_000);
    const release = await holdBudgetFull(ahead.jobId);
    await placeJob(ahead.job);
    await runDurableObjectAlarm(stubFor(ahead.jobId));
    const after = await inShardTables(stubFor(ahead.jobId), async (_sql, storage) => ({
      alarmAtMs: await storage.getAlarm(),
      nowMs: Date.now(),
    }));
    // No room: nothing went ahead, and the alarm waits (as for runs held back) rather than
    // ringing at the job's ahead time, which has passed.
    expect(await shardRunsOf(ahead.jobId)).toEqual([]);
    expect(after.alarmAtMs).toBeGreaterThan(after.nowMs + 100);
    expect(Date.now()).toBeLessThan(ahead.atMs);
    await release();
    await waitSucceeded(ahead.jobId);
    expect(await targetCalls(ahead.path)).toHaveLength(1);
  });

  it("holds a jittered run to its instant plus its jitter", async () => {
    let ahead = aheadJob("jitter", 2_000, { jitter: "2s" });
    // One job id in 2,000 draws no offset for its instant; pick one that draws some, so the
    // check below can tell a jittered fire time from an unjittered one.
    while (fireJitterMs(ahead.jobId, ahead.atMs, 2_000) === 0)
      ahead = aheadJob("jitter", 2_000, { jitter: "2s" });
    await placeJob(ahead.job);
    await waitQueuedAhead(ahead);
    const [row] = await shardRows<{ fire_at_ms: number }>(
      ahead.jobId,
      "SELECT fire_at_ms FROM runs WHERE job_id = ?",
      ahead.jobId,
    );
    // The jitter offset (deterministic per job and instant) puts the fire time past the instant.
    expect(row!.fire_at_ms).toBeGreaterThan(ahead.atMs);
    await waitSucceeded(ahead.jobId);
    const [call] = await targetCalls(ahead.path);
    expect(call!.receivedAtMs).toBeGreaterThanOrEqual(row!.fire_at_ms);
    expect(call!.headers["edgecron-scheduled-at"]).toBe(new Date(ahead.atMs).toISOString());
  });

  it("never calls a run whose job was paused before its instant", async () => {
    const paused = aheadJob("paused", 2_500);
    await placeJob(paused.job);
    await waitQueuedAhead(paused);
    await push(paused.job, 2, { status: "PAUSED" });
    // The queued run is recorded cancelled: its message is refused at the claim.
    expect((await shardRunsOf(paused.jobId)).map((run) => run.state)).toEqual(["CANCELLED"]);
    // A job due at the same instant is the observable: once it ran, the paused one would have.
    const control = aheadJob("paused-control", paused.atMs - Date.now());
    await placeJob(control.job);
    await waitSucceeded(control.jobId);
    expect(await targetCalls(paused.path)).toEqual([]);
    const [record] = await historyOf(paused.jobId);
    expect(record?.state).toBe("CANCELLED");
    expect(record?.events_json).toContain("job paused");
  });

  it("runs once, at its instant, a job paused and resumed before it", async () => {
    const ahead = aheadJob("resumed", 3_000);
    await placeJob(ahead.job);
    const first = await waitQueuedAhead(ahead);
    await push(ahead.job, 2, { status: "PAUSED" });
    await push(ahead.job, 3, { status: "ACTIVE" });
    const done = await waitSucceeded(ahead.jobId);
    const calls = await targetCalls(ahead.path);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.receivedAtMs).toBeGreaterThanOrEqual(ahead.atMs);
    // A new send after the resume, at the new version; the first message was refused.
    expect(done.fence).not.toBe(first.fence);
    expect(done.job_version).toBe(3);
  });

  it("calls the edited target, never the old one, for an edit before the instant", async () => {
    const ahead = aheadJob("edited", 3_000);
    await placeJob(ahead.job);
    await waitQueuedAhead(ahead);
    const newPath = `${ahead.path}-v2`;
    const edited = JSON.parse(ahead.job.specJson) as { target: { url: string } };
    edited.target.url = targetUrl(newPath);
    await push(ahead.job, 2, { specJson: JSON.stringify(edited) });
    await waitSucceeded(ahead.jobId);
    expect(await targetCalls(`${ahead.path}-v2`)).toHaveLength(1);
    const oldCalls = (await targetCalls(ahead.path)).filter((call) => call.path === ahead.path);
    expect(oldCalls).toEqual([]);
    expect((await targetCalls(newPath))[0]!.receivedAtMs).toBeGreaterThanOrEqual(ahead.atMs);
  });

  it("runs once, at the new version, a job whose version changed before its instant with nothing else", async () => {
    const ahead = aheadJob("bumped", 3_000);
    await placeJob(ahead.job);
    await waitQueuedAhead(ahead);
    await push(ahead.job, 2);
    const done = await waitSucceeded(ahead.jobId);
    const calls = await targetCalls(ahead.path);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.receivedAtMs).toBeGreaterThanOrEqual(ahead.atMs);
    expect(done.job_version).toBe(2);
  });

  it("never calls a run whose job was deleted before its instant", async () => {
    const deleted = aheadJob("deleted", 2_500);
    await placeJob(deleted.job);
    await waitQueuedAhead(deleted);
    await push(deleted.job, 2, { status: "DELETED" });
    expect((await shardRunsOf(deleted.jobId)).map((run) => run.state)).toEqual(["CANCELLED"]);
    const control = aheadJob("deleted-control", deleted.atMs - Date.now());
    await placeJob(control.job);
    await waitSucceeded(control.jobId);
    expect(await targetCalls(deleted.path)).toEqual([]);
  });

  it("counts runs sent ahead towards max_runs exactly as before", async () => {
    const jobId = uniqueJobId("max-runs");
    const path = `/ok/ahead/${jobId}`;
    const anchorMs = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    const job = snapshot(
      jobId,
      spec({
        schedule: { type: "interval", every: "1s", anchor: new Date(anchorMs).toISOString() },
        target: { url: targetUrl(path), method: "POST" },
        max_runs: 2,
      }),
    );
    await placeJob(job);
    await vi.waitFor(async () => {
      const rows = await historyOf(jobId);
      expect(rows.map((row) => row.state)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    }, WAIT);
    // The job's own pass for its last instant comes a little after that instant's run settled.
    await vi.waitFor(async () => {
      const [status] = await shardRows<{ status: string; run_count: number }>(
        jobId,
        "SELECT status, run_count FROM jobs WHERE job_id = ?",
        jobId,
      );
      expect(status).toEqual({ status: "COMPLETED", run_count: 2 });
    }, WAIT);
    // Both settled into their history records and left the wheel's table; no third instant ran.
    expect(await shardRunsOf(jobId)).toEqual([]);
    expect(await historyOf(jobId)).toHaveLength(2);
    for (const call of await targetCalls(path)) {
      expect(call.receivedAtMs).toBeGreaterThanOrEqual(
        Date.parse(call.headers["edgecron-scheduled-at"] ?? ""),
      );
    }
  });

  it("keeps a job with another overlap policy, and one beyond the lead window, on the wheel", async () => {
    const skip = aheadJob("overlap-skip", 2_500, { overlap: "skip" });
    const later = aheadJob("later", LEAD_MS + 60_000);
    await placeJob(later.job);
    await placeJob(skip.job);
    for (const { jobId } of [skip, later]) {
      // Nothing created ahead: the overlap decision needs the runs in flight at the instant.
      expect(await shardRunsOf(jobId)).toEqual([]);
    }
    // The shard wakes for the far job at its instant less the lead, and for the other at its instant.
    const alarmOf = (jobId: string) => inShardTables(stubFor(jobId), (_sql, storage) => storage.getAlarm());
    if (shardOfJob(env, later.jobId) !== shardOfJob(env, skip.jobId)) {
      // (An earlier test may have left the shard an earlier alarm: its pass plans the next one.)
      await runDurableObjectAlarm(stubFor(later.jobId));
      expect(await alarmOf(later.jobId)).toBe(later.atMs - LEAD_MS);
    }
    expect(await alarmOf(skip.jobId)).toBeLessThanOrEqual(skip.atMs);
    await waitSucceeded(skip.jobId);
    const [call] = await targetCalls(skip.path);
    expect(call!.receivedAtMs).toBeGreaterThanOrEqual(skip.atMs);
  });
});

describe("bundling runs sent ahead", () => {
  const run = (i: number, fireAtMs: number): DispatchRun => ({
    run_id: `run_${i}`,
    job_id: `job_${i}`,
    tenant_id: "ten",
    scheduled_at_ms: fireAtMs,
    attempt: 1,
    fence: i,
    job_version: 1,
    fire_at_ms: fireAtMs,
  });

  it("puts in one message only runs due within HOLD_SPREAD_MS of each other, in instant order", () => {
    const nowMs = 1_000_000;
    const runs = [
      run(1, nowMs + 2_000),
      run(2, nowMs - 5),
      run(3, nowMs + 1_000),
      run(4, nowMs + 1_000 + HOLD_SPREAD_MS),
    ];
    const messages = bundleByInstant(7, runs, 50, nowMs);
    expect(messages.map((message) => message.runs.map((r) => r.run_id))).toEqual([
      ["run_2"],
      ["run_3", "run_4"],
      ["run_1"],
    ]);
    expect(messages.map((message) => holdUntilMs(message.runs))).toEqual([
      nowMs - 5,
      nowMs + 1_000 + HOLD_SPREAD_MS,
      nowMs + 2_000,
    ]);
  });
});

describe("run tokens of runs sent ahead", () => {
  it("are minted by the shard before the instant, for the attempt and fence sent; a run due now leaves it to the consumer", async () => {
    // A shard instance of its own: the runs below are never on a real shard's wheel.
    const stub = env.SHARD_SCHEDULER.get(env.SHARD_SCHEDULER.idFromName(`tokens-${Date.now()}`));
    const nowMs = Date.now();
    const sent = await withShardState(stub, async (state) => {
      const newRun = (jobId: string, fireAtMs: number) =>
        insertRun(state, {
          jobId,
          tenantId: "ten_tokens",
          kind: "schedule",
          scheduledAtMs: fireAtMs,
          fireAtMs,
          maxAttempts: 3,
          jobVersion: 1,
          state: "SCHEDULED",
          dueAtMs: nowMs,
          waiting: null,
          reason: "test",
          nowMs,
        })!;
      const aheadId = newRun("job_tokens_ahead", nowMs + 3_000);
      const dueId = newRun("job_tokens_due", nowMs - 10);
      const messages: DispatchMessage[] = [];
      const recorder = {
        async sendBatch(requests: Iterable<MessageSendRequest<DispatchMessage>>) {
          for (const request of requests) messages.push(request.body);
        },
      };
      const settings = { ...tickSettings(env, 7), queue: recorder };
      await dispatchRuns(state, settings, [aheadId, dueId], new Map(), nowMs);
      return messages.flatMap((message) => message.runs);
    });
    const ahead = sent.find((run) => run.job_id === "job_tokens_ahead")!;
    const due = sent.find((run) => run.job_id === "job_tokens_due")!;
    expect(ahead.run_token).toBeDefined();
    expect(await verifyRunToken(await runTokenSecret(env), ahead.run_id, ahead.run_token!)).toEqual({
      shard: 7,
      attempt: 1,
      fence: ahead.fence,
    });
    expect(due.run_token).toBeUndefined();
  });
});
