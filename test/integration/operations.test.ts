import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { JobSpec } from "../../src/core/jobs/job-spec";
import { loseShardAlarm } from "../../src/service/fault-injection";
import { retryRun, shardOfJob, triggerJob } from "../../src/shard/client";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { jobsDb } from "../helpers/job-databases";
import {
  dispatchButLose,
  historyOf,
  makeJobDue,
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  statesOf,
  stubFor,
  targetCalls,
  targetCallVerifies,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { patchJobOf } from "../helpers/shard-state";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface ShardRun {
  run_id: string;
  state: string;
  kind: string;
  scheduled_at_ms: number;
  events_json: string;
}

async function shardRuns(jobId: string): Promise<ShardRun[]> {
  return shardRows<ShardRun>(jobId, "SELECT * FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms", jobId);
}

/**
 * The runs of the 11 instants from `anchorMs` on, the ones the pause missed. Not "before the
 * resume": on a loaded machine the set-up takes more than its half second of slack, and the
 * instant after them is then missed too (12 runs, seen at a load average of 8). The
 * next one may already be sent ahead.
 */
async function missedRuns(jobId: string, anchorMs: number): Promise<ShardRun[]> {
  return (await shardRuns(jobId)).filter(
    (run) => run.scheduled_at_ms >= anchorMs && run.scheduled_at_ms <= anchorMs + 10_000,
  );
}

/**
 * A paused every-second job whose timer sits 10.5 s in the past, as if it was paused then, with a
 * 3 s grace: on resume its instants 10.5 s to 3.5 s old (8) are missed beyond the grace, and the
 * 3 from 2.5 s to 0.5 s old are late within it (half a second from either edge).
 */
async function jobPausedTenSecondsAgo(
  label: string,
  misfire: { policy: "fire_now" | "skip" | "catch_up"; max_catch_up?: number },
) {
  const jobId = uniqueJobId(label);
  const anchorMs = Date.now() - 10_500;
  const jobSpec = spec({
    schedule: { type: "interval", every: "1s", anchor: new Date(anchorMs).toISOString() },
    target: { url: targetUrl(`/ok/${jobId}`) },
    misfire: { policy: misfire.policy, grace: "3s", max_catch_up: misfire.max_catch_up ?? 10 },
  });
  await placeJob(snapshot(jobId, jobSpec, 1, "PAUSED"));
  await makeJobDue(jobId, anchorMs);
  return { jobId, jobSpec, anchorMs };
}

/**
 * Resumes the job and returns the first instant (whole seconds after the anchor) that can be
 * within the 3 s grace, as a range: the shard resumes it somewhere between the two clock reads
 * around the push, and on a loaded machine that is later than the set-up's half second of slack
 * (CI saw the grace start an instant later).
 */
async function resume(jobId: string, jobSpec: JobSpec, anchorMs: number): Promise<[number, number]> {
  const fromMs = Date.now();
  await placeJob(snapshot(jobId, jobSpec, 2, "ACTIVE"));
  const toMs = Date.now();
  const firstWithin = (resumedMs: number) => Math.ceil((resumedMs - 3_000 - anchorMs) / 1000);
  return [firstWithin(fromMs), firstWithin(toMs)];
}

/** Whole seconds `from` to 10 (the last missed instant). */
function throughTen(from: number): number[] {
  return Array.from({ length: 11 - from }, (_, index) => from + index);
}

/** The instants of the runs, as whole seconds after the anchor. */
function secondsAfter(anchorMs: number, runs: readonly ShardRun[]): number[] {
  return runs.map((run) => Math.round((run.scheduled_at_ms - anchorMs) / 1000));
}

describe("operations: pause, resume, misfire, overlap, backfill, jitter, alerts", () => {
  beforeAll(() => seedTenant());

  describe("resume treats what passed while paused as an outage: the grace, then the misfire policy", () => {
    it("fire_now fires the instants within the grace, and once for those missed beyond it", async () => {
      const { jobId, jobSpec, anchorMs } = await jobPausedTenSecondsAgo("fire-now", { policy: "fire_now" });
      const [earliest, latest] = await resume(jobId, jobSpec, anchorMs);
      const runs = await missedRuns(jobId, anchorMs);
      const fired = runs.filter((run) => run.state !== "SKIPPED");
      const skipped = runs.filter((run) => run.state === "SKIPPED");
      expect(secondsAfter(anchorMs, runs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      // The newest instant missed beyond the grace (7 s after the anchor, when the resume is on
      // time) fires late, then every one within the grace.
      const newestBeyond = secondsAfter(anchorMs, fired)[0] ?? -1;
      expect(newestBeyond + 1).toBeGreaterThanOrEqual(earliest);
      expect(newestBeyond + 1).toBeLessThanOrEqual(latest);
      expect(secondsAfter(anchorMs, fired)).toEqual(throughTen(newestBeyond));
      expect(skipped.every((run) => run.events_json.includes("misfire fire_now"))).toBe(true);
      await vi.waitFor(
        async () => expect((await targetCalls(`/ok/${jobId}`)).length).toBeGreaterThanOrEqual(4),
        WAIT,
      );
      await placeJob(snapshot(jobId, jobSpec, 3, "PAUSED"));
    });

    it("skip fires only the instants within the grace", async () => {
      const { jobId, jobSpec, anchorMs } = await jobPausedTenSecondsAgo("skip", { policy: "skip" });
      const [earliest, latest] = await resume(jobId, jobSpec, anchorMs);
      const runs = await missedRuns(jobId, anchorMs);
      const fired = runs.filter((run) => run.state !== "SKIPPED");
      expect(secondsAfter(anchorMs, runs)).toHaveLength(11);
      // Only those within the grace (8, 9 and 10 when the resume is on time).
      const firstWithin = secondsAfter(anchorMs, fired)[0] ?? -1;
      expect(firstWithin).toBeGreaterThanOrEqual(earliest);
      expect(firstWithin).toBeLessThanOrEqual(latest);
      expect(secondsAfter(anchorMs, fired)).toEqual(throughTen(firstWithin));
      await vi.waitFor(async () => {
        const calls = await targetCalls(`/ok/${jobId}`);
        const early = calls.filter(
          (call) => Date.parse(call.headers["edgecron-scheduled-at"]!) < anchorMs + 7_500,
        );
        expect(calls.length).toBeGreaterThanOrEqual(3);
        expect(early).toHaveLength(0);
      }, WAIT);
      await placeJob(snapshot(jobId, jobSpec, 3, "PAUSED"));
    });

    it("catch_up fires up to max_catch_up of the instants missed beyond the grace, and those within it", async () => {
      const { jobId, jobSpec, anchorMs } = await jobPausedTenSecondsAgo("catch-up", {
        policy: "catch_up",
        max_catch_up: 3,
      });
      const [earliest, latest] = await resume(jobId, jobSpec, anchorMs);
      const runs = await missedRuns(jobId, anchorMs);
      const fired = runs.filter((run) => run.state !== "SKIPPED");
      // The 3 newest instants missed beyond the grace (5, 6 and 7 when the resume is on time),
      // then every one within it.
      const firstCaughtUp = secondsAfter(anchorMs, fired)[0] ?? -1;
      expect(firstCaughtUp + 3).toBeGreaterThanOrEqual(earliest);
      expect(firstCaughtUp + 3).toBeLessThanOrEqual(latest);
      expect(secondsAfter(anchorMs, fired)).toEqual(throughTen(firstCaughtUp));
      expect(fired.filter((run) => run.kind === "catch_up").map((run) => run.scheduled_at_ms)).toEqual(
        [0, 1, 2].map((index) => anchorMs + (firstCaughtUp + index) * 1000),
      );
      await vi.waitFor(
        async () => expect((await targetCalls(`/ok/${jobId}`)).length).toBeGreaterThanOrEqual(6),
        WAIT,
      );
      await placeJob(snapshot(jobId, jobSpec, 3, "PAUSED"));
    });
  });

  it("pause stops dispatch within one tick and a message already in flight is refused", async () => {
    const jobId = uniqueJobId("pause");
    const jobSpec = spec({
      schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const stub = stubFor(jobId);
    await dispatchButLose([jobId]);
    const [inFlight] = await shardRows<{ run_id: string; fence: number }>(
      jobId,
      "SELECT run_id, fence FROM runs WHERE job_id = ?",
      jobId,
    );
    await placeJob(snapshot(jobId, jobSpec, 2, "PAUSED"));
    const claims = await stub.claimRuns(shardOfJob(env, jobId), [
      { runId: inFlight!.run_id, fence: inFlight!.fence },
    ]);
    expect(claims[0]).toMatchObject({ ok: false, code: "cancelled" });
    await makeJobDue(jobId);
    await runInDurableObject(stub, (_instance, state) => state.storage.setAlarm(Date.now() + 60_000));
    await runDurableObjectAlarm(stub);
    const runs = await shardRuns(jobId);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.state).toBe("CANCELLED");
    expect(runs[0]!.events_json).toContain("job paused");
    expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(0);
  });

  it("overlap buffer_one waits for the running instant, skips the next, and never overlaps calls", async () => {
    const jobId = uniqueJobId("buffer");
    const jobSpec = spec({
      schedule: {
        type: "interval",
        every: "1s",
        anchor: new Date(Math.ceil(Date.now() / 1000) * 1000).toISOString(),
      },
      target: { url: targetUrl(`/slow/2200/${jobId}`) },
      overlap: "buffer_one",
    });
    await placeJob(snapshot(jobId, jobSpec));
    await vi.waitFor(
      async () => expect((await targetCalls(`/slow/2200/${jobId}`)).length).toBeGreaterThanOrEqual(2),
      {
        timeout: 15_000,
        interval: 200,
      },
    );
    await placeJob(snapshot(jobId, jobSpec, 2, "PAUSED"));
    const runs = await shardRuns(jobId);
    expect(
      runs.some((run) => run.state === "SKIPPED" && run.events_json.includes("overlap buffer_one")),
    ).toBe(true);
    const calls = await targetCalls(`/slow/2200/${jobId}`);
    for (let i = 1; i < calls.length; i++) {
      expect(calls[i]!.receivedAtMs - calls[i - 1]!.receivedAtMs).toBeGreaterThanOrEqual(2_100);
    }
  });

  it("backfill runs every instant in the range once, and a repeated backfill adds nothing", async () => {
    const jobId = uniqueJobId("backfill");
    const jobSpec = spec({
      schedule: { type: "cron", expr: "0 * * * *", timezone: "UTC" },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const shard = shardOfJob(env, jobId);
    const hourMs = 3_600_000;
    const toMs = Math.floor(Date.now() / hourMs) * hourMs - hourMs;
    const fromMs = toMs - 4 * hourMs;
    const first = await stubFor(jobId).backfill(shard, jobId, fromMs, toMs);
    expect(first).toMatchObject({ ok: true, created: 5, skipped: 0 });
    const again = await stubFor(jobId).backfill(shard, jobId, fromMs, toMs);
    expect(again).toMatchObject({ ok: true, created: 0, skipped: 5 });
    const tooMany = await stubFor(jobId).backfill(shard, jobId, toMs - 2_000 * hourMs, toMs);
    expect(tooMany).toEqual({ ok: false, code: "too_many_instants" });
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(5), WAIT);
    const keys = (await targetCalls(`/ok/${jobId}`))
      .map((call) => call.headers["edgecron-scheduled-at"])
      .sort();
    expect(keys).toEqual([0, 1, 2, 3, 4].map((i) => new Date(fromMs + i * hourMs).toISOString()));
  });

  it("backfill at the shard never creates a run later than its own now: the schedule fires that instant", async () => {
    const jobId = uniqueJobId("backfill-future");
    const jobSpec = spec({
      schedule: { type: "cron", expr: "0 * * * *", timezone: "UTC" },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    await placeJob(snapshot(jobId, jobSpec));
    const shard = shardOfJob(env, jobId);
    const hourMs = 3_600_000;
    const nextHourMs = (Math.floor(Date.now() / hourMs) + 1) * hourMs;
    // A caller that skipped the API's check: from 3 hours ago to a day ahead.
    const result = await stubFor(jobId).backfill(
      shard,
      jobId,
      nextHourMs - 3 * hourMs,
      nextHourMs + 24 * hourMs,
    );
    expect(result).toMatchObject({ ok: true, created: 3, skipped: 0 });
    expect((await shardRuns(jobId)).map((run) => run.scheduled_at_ms)).toEqual(
      [3, 2, 1].map((hours) => nextHourMs - hours * hourMs),
    );
    // The next instant's key is still the schedule's: make it due (fire time now) and tick.
    await patchJobOf(jobId, { next_fire_ms: Date.now() });
    // The shard's own alarm may be mid-pass (it fires the backfilled runs in real time), and a pass
    // that started before the patch does not see it: tick until a pass has.
    const fired = await vi.waitFor(async () => {
      await runDurableObjectAlarm(stubFor(jobId));
      const run = (await shardRuns(jobId)).find((candidate) => candidate.scheduled_at_ms === nextHourMs);
      expect(run).toMatchObject({ kind: "schedule" });
      return run;
    }, WAIT);
    expect(fired?.state).not.toBe("SKIPPED");
    await vi.waitFor(async () => {
      const keys = (await targetCalls(`/ok/${jobId}`)).map((call) => call.headers["edgecron-scheduled-at"]);
      expect(keys).toContain(new Date(nextHourMs).toISOString());
    }, WAIT);
  });

  it("jitter spreads the fire time deterministically within the window", async () => {
    const jobId = uniqueJobId("jitter");
    const jobSpec = spec({
      schedule: { type: "cron", expr: "0 0 * * *", timezone: "UTC" },
      target: { url: targetUrl(`/ok/${jobId}`) },
      jitter: "30s",
    });
    await placeJob(snapshot(jobId, jobSpec));
    const [job] = await shardRows<{ next_scheduled_ms: number; next_fire_ms: number }>(
      jobId,
      "SELECT next_scheduled_ms, next_fire_ms FROM jobs WHERE job_id = ?",
      jobId,
    );
    const offsetMs = job!.next_fire_ms - job!.next_scheduled_ms;
    expect(offsetMs).toBeGreaterThanOrEqual(0);
    expect(offsetMs).toBeLessThan(30_000);
    await placeJob(snapshot(jobId, jobSpec, 2, "PAUSED"));
  });

  it("pauses a job after N consecutive dead-lettered runs and raises an alert", async () => {
    const jobId = uniqueJobId("autopause");
    const jobSpec = spec({
      schedule: { type: "interval", every: "1s", anchor: new Date(Date.now()).toISOString() },
      target: { url: targetUrl(`/status/404/${jobId}`) },
      pause_after_failures: 2,
    });
    const nowMs = Date.now();
    await jobsDb(jobId)
      .prepare(
        `INSERT INTO jobs (id, tenant_id, name, spec_json, status, version, shard, synced_version, created_at_ms, updated_at_ms)
       VALUES (?, 'ten_scheduling_tests', 'autopause', ?, 'ACTIVE', 1, ?, 1, ?, ?)`,
      )
      .bind(jobId, JSON.stringify(jobSpec), shardOfJob(env, jobId), nowMs, nowMs)
      .run();
    await placeJob(snapshot(jobId, jobSpec));
    const row = await vi.waitFor(async () => {
      const job = await jobsDb(jobId)
        .prepare("SELECT status, version FROM jobs WHERE id = ?")
        .bind(jobId)
        .first<{ status: string; version: number }>();
      expect(job?.status).toBe("PAUSED");
      return job!;
    }, WAIT);
    expect(row.version).toBe(2);
    const alert = await vi.waitFor(async () => {
      const found = await env.DB.prepare(
        "SELECT kind, message FROM alerts WHERE job_id = ? AND kind = 'paused_after_failures'",
      )
        .bind(jobId)
        .first<{ kind: string; message: string }>();
      expect(found).not.toBeNull();
      return found!;
    }, WAIT);
    expect(alert.message).toContain("2 consecutive");
    const deadLettered = (await historyOf(jobId)).filter((run) => run.state === "DEAD_LETTERED");
    expect(deadLettered.length).toBeGreaterThanOrEqual(2);
  });

  it("raises a missed-run alert for a shard whose alarm was lost, then the watchdog recovers it", async () => {
    const jobId = uniqueJobId("missed");
    const jobSpec = spec({
      schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}`) },
      alert_after: "1m",
    });
    await placeJob(snapshot(jobId, jobSpec));
    const _stub = stubFor(jobId);
    // The instant passed 5 minutes ago and the shard's alarm is gone (nothing re-arms it yet).
    const missedAtMs = Date.now() - 5 * 60_000;
    await patchJobOf(jobId, { next_fire_ms: missedAtMs, next_scheduled_ms: missedAtMs });
    await loseShardAlarm(env, shardOfJob(env, jobId), 0);
    const summary = await maintenanceStub().runNow();
    expect(summary.missedRunAlerts).toBeGreaterThanOrEqual(1);
    expect(summary.alarmsRearmed).toBeGreaterThanOrEqual(1);
    const alert = await env.DB.prepare("SELECT kind, details_json FROM alerts WHERE job_id = ?")
      .bind(jobId)
      .first<{ kind: string; details_json: string }>();
    expect(alert?.kind).toBe("missed_run");
    expect(JSON.parse(alert!.details_json).scheduled_at).toBe(new Date(missedAtMs).toISOString());
    // Recovered: the missed instant fires (late, through the misfire policy), once.
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1), WAIT);
    const run = await vi.waitFor(async () => {
      const [found] = await historyOf(jobId);
      expect(found?.state).toBe("SUCCEEDED");
      return found!;
    }, WAIT);
    expect(run.events_json).toContain("misfire fire_now");
    await placeJob(snapshot(jobId, jobSpec, 2, "PAUSED"));
  });

  it("delivers a dead-letter alert, signed, to the tenant webhook and the job's on_failure URL", async () => {
    const tenantId = `ten_alerts_${Date.now().toString(36)}`;
    const secret = "b".repeat(64);
    await env.DB.prepare(
      "INSERT INTO tenants (id, name, signing_secret, alert_webhook_url, created_at_ms) VALUES (?, ?, ?, ?, ?)",
    )
      .bind(tenantId, "alerts", secret, targetUrl(`/ok/alert-hook/${tenantId}`), Date.now())
      .run();
    const jobId = uniqueJobId("alert");
    const jobSpec = spec({
      schedule: { type: "once", at: new Date(Date.now() - 100).toISOString() },
      target: { url: targetUrl(`/status/404/${jobId}`) },
      on_failure: targetUrl(`/ok/on-failure/${jobId}`),
    });
    await placeJob({ ...snapshot(jobId, jobSpec), tenantId });
    const [hook] = await vi.waitFor(async () => {
      const calls = await targetCalls(`/ok/alert-hook/${tenantId}`);
      expect(calls).toHaveLength(1);
      return calls;
    }, WAIT);
    const alert = JSON.parse(hook!.body) as { kind: string; job_id: string; details: { reason: string } };
    expect(alert).toMatchObject({ kind: "dead_lettered", job_id: jobId, details: { reason: "permanent" } });
    expect(await targetCallVerifies(hook!, [secret])).toBe(true);
    await vi.waitFor(async () => expect(await targetCalls(`/ok/on-failure/${jobId}`)).toHaveLength(1), WAIT);
    // The delivery is recorded after both calls return: wait for the row, not just the calls.
    await vi.waitFor(async () => {
      const row = await env.DB.prepare("SELECT delivered_at_ms, delivery_error FROM alerts WHERE job_id = ?")
        .bind(jobId)
        .first<{ delivered_at_ms: number | null; delivery_error: string | null }>();
      expect(row?.delivered_at_ms).not.toBeNull();
      expect(row?.delivery_error).toBeNull();
    }, WAIT);
  });

  it("triggers a job now with its own idempotency key, and refuses a paused one", async () => {
    const jobId = uniqueJobId("trigger");
    const jobSpec = spec({
      schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    const shard = await placeJob(snapshot(jobId, jobSpec));
    const result = await triggerJob(env, shard, jobId);
    expect(result.ok).toBe(true);
    const [call] = await vi.waitFor(async () => {
      const calls = await targetCalls(`/ok/${jobId}`);
      expect(calls).toHaveLength(1);
      return calls;
    }, WAIT);
    expect(call!.headers["idempotency-key"]).toBe(
      `${jobId}:${new Date(result.ok ? result.scheduledAtMs : 0).toISOString()}`,
    );
    await placeJob(snapshot(jobId, jobSpec, 2, "PAUSED"));
    expect(await triggerJob(env, shard, jobId)).toEqual({ ok: false, code: "job_not_active" });
    expect(await triggerJob(env, shard, "job_missing")).toEqual({ ok: false, code: "job_not_found" });
  });

  it("manually retries a dead-lettered run: a new attempt with the same idempotency key", async () => {
    const jobId = uniqueJobId("manual");
    const jobSpec = spec({
      schedule: { type: "once", at: new Date(Date.now() - 100).toISOString() },
      target: { url: targetUrl(`/flaky/1/${jobId}`) },
      retry: { max_attempts: 1 },
    });
    const shard = await placeJob(snapshot(jobId, jobSpec));
    const dead = await vi.waitFor(async () => {
      const [run] = await historyOf(jobId);
      expect(run?.state).toBe("DEAD_LETTERED");
      return run!;
    }, WAIT);
    expect(await retryRun(env, shard, dead.id)).toEqual({ ok: true, runId: dead.id, attempt: 2 });
    const done = await vi.waitFor(async () => {
      const [run] = await historyOf(jobId);
      expect(run?.state).toBe("SUCCEEDED");
      return run!;
    }, WAIT);
    expect(statesOf(done)).toContain("DEAD_LETTERED");
    const calls = await targetCalls(`/flaky/1/${jobId}`);
    expect(calls.map((call) => call.headers["edgecron-attempt"])).toEqual(["1", "2"]);
    expect(calls[0]!.headers["idempotency-key"]).toBe(calls[1]!.headers["idempotency-key"]);
    expect(await retryRun(env, shard, dead.id)).toEqual({ ok: false, code: "run_not_retryable" });
  });
});
