// A simulated tz database change (a deploy whose zone rules differ): the shard re-derives every
// job's timer from the last instant it handled, in bounded batches per alarm, firing nothing
// twice and missing nothing.

import { env, runDurableObjectAlarm, SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TzdataView } from "../../src/api/v1/views/tzdata-view";
import { nextFireTimes } from "../../src/core/schedules/schedule";
import { clearFaults, injectFaults, loseShardAlarm, setShardTzdata } from "../../src/service/fault-injection";
import { pushJobs, shardOfJob, shardTzdata } from "../../src/shard/client";
import type { TzdataProgress } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { jobIdsOnOneShard, seedTenant, shardStub, snapshot, spec, targetUrl } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const ZONE = "Asia/Tokyo";
const NEW_RULES = "test-rules-2";

/** Tokyo wall time (no DST there) half an hour from now, as a daily cron. */
function dailyCronHalfAnHourAhead(nowMs: number): string {
  const wall = new Date(nowMs + 9 * HOUR_MS + 30 * MINUTE_MS);
  return `${wall.getUTCMinutes()} ${wall.getUTCHours()} * * *`;
}

type JobTimer = { job_id: string; next_scheduled_ms: number | null; next_fire_ms: number | null };
type RunInstant = { job_id: string; scheduled_at_ms: number; kind: string };

function shardQuery<T>(shard: number, query: string): Promise<T[]> {
  return inShardTables(shardStub(shard), (sql, _storage) => sql.exec(query).toArray()) as Promise<T[]>;
}

/**
 * Runs exactly one alarm pass: the shard's own re-arming is held off (a lost alarm, test hook),
 * so each pass is one re-derivation batch, with no real alarm racing the test.
 */
async function runOnePass(shard: number): Promise<void> {
  const stub = shardStub(shard);
  await inShardTables(stub, (_sql, storage) => storage.setAlarm(Date.now() + HOUR_MS));
  expect(await runDurableObjectAlarm(stub)).toBe(true);
}

/** Passes until the shard's timers use the runtime's rules; returns the progress seen after each. */
async function rederiveToEnd(shard: number): Promise<TzdataProgress[]> {
  const seen: TzdataProgress[] = [];
  for (let pass = 0; pass < 50; pass++) {
    await runOnePass(shard);
    const progress = await shardTzdata(env, shard);
    seen.push(progress);
    if (progress.rederivingTo === null) return seen;
  }
  throw new Error("re-derivation did not finish in 50 passes");
}

describe("a tz database change (simulated)", () => {
  beforeAll(() => seedTenant());
  afterAll(() => setShardTzdata(env, 0, null));

  it("re-derives every timer in batches, keeps a due timer, fires a re-derived past instant once, and fires nothing twice", async () => {
    const nowMs = Date.now();
    const expr = dailyCronHalfAnHourAhead(nowMs);
    const schedule = { type: "cron" as const, expr, timezone: ZONE };
    const oldNextMs = nextFireTimes(schedule, nowMs, 1)[0] as number;
    const jobIds = jobIdsOnOneShard("tz", 23);
    const shard = shardOfJob(env, jobIds[0] as string);
    const stub = shardStub(shard);
    const jobSpec = spec({
      schedule,
      target: { url: targetUrl("/ok/tzdata"), method: "POST" },
      misfire: { policy: "fire_now", grace: "2h", max_catch_up: 10 },
    });
    const confirmed = await pushJobs(
      env,
      jobIds.map((jobId) => snapshot(jobId, jobSpec)),
    );
    expect(confirmed.size).toBe(jobIds.length);
    const before = await shardTzdata(env, shard);
    expect(before.rederivingTo).toBeNull();
    const realRules = before.timersVersion;
    expect(realRules).toMatch(/intl-[0-9a-f]{12}$/);

    // Two jobs fired yesterday's instant; two are due right now (the tick has not run yet).
    const firedYesterday = jobIds.slice(0, 2);
    const dueNow = jobIds.slice(2, 4);
    const dueAtMs = nowMs - 1_000;
    await inShardTables(stub, (sql, _storage) => {
      for (const jobId of firedYesterday) {
        sql.exec("UPDATE jobs SET fired_through_ms = ? WHERE job_id = ?", oldNextMs - 24 * HOUR_MS, jobId);
      }
      for (const jobId of dueNow) {
        sql.exec(
          "UPDATE jobs SET next_scheduled_ms = ?, next_fire_ms = ? WHERE job_id = ?",
          dueAtMs,
          dueAtMs,
          jobId,
        );
      }
    });

    // The deploy: Tokyo moves one hour ahead from six hours ago, so today's instant under the new
    // rules was half an hour ago, and tomorrow's comes 23 h after the old one.
    await injectFaults(env, shard, { rederiveBatchJobs: 5 });
    await loseShardAlarm(env, shard, 10 * MINUTE_MS);
    await setShardTzdata(env, shard, {
      version: NEW_RULES,
      patches: [{ zone: ZONE, fromMs: nowMs - 6 * HOUR_MS, shiftMinutes: 60 }],
    });
    const started = await shardTzdata(env, shard);
    expect(started).toMatchObject({ timersVersion: realRules, rederivingTo: NEW_RULES, jobsDone: 0 });

    // Admins see it per shard; asking makes every shard compare at once (the others have no jobs
    // of this test: they just record the new version).
    const midway = await api<TzdataView>("GET", "/v1/tzdata");
    expect(midway.status).toBe(200);
    expect(midway.body.tzdata).toBe(NEW_RULES);
    expect(midway.body.up_to_date).toBe(false);
    expect(midway.body.shards.find((view) => view.shard === shard)).toMatchObject({
      timers_version: realRules,
      rederiving_to: NEW_RULES,
      jobs_done: 0,
      jobs_total: 23,
    });

    const passes = await rederiveToEnd(shard);
    // 23 jobs, 5 per alarm: five passes, progress visible after each.
    expect(passes.map((progress) => progress.jobsDone)).toEqual([5, 10, 15, 20, 23]);
    expect(passes.slice(0, 4).every((progress) => progress.rederivingTo === NEW_RULES)).toBe(true);
    expect(passes.at(-1)).toMatchObject({ timersVersion: NEW_RULES, rederivingTo: null, jobsTotal: 23 });

    // The re-derived past instant (fired yesterday, so today's is owed) is due: one more pass fires it.
    await runOnePass(shard);
    const runs = await shardQuery<RunInstant>(
      shard,
      // Live rows, and the records of runs that settled and left `runs`.
      `SELECT job_id, scheduled_at_ms, kind FROM runs
       UNION SELECT job_id, scheduled_at_ms, kind FROM run_history ORDER BY job_id, scheduled_at_ms`,
    );
    const ours = runs.filter((run) => jobIds.includes(run.job_id));
    expect(ours).toEqual(
      [
        ...firedYesterday.map((jobId) => ({
          job_id: jobId,
          scheduled_at_ms: oldNextMs - HOUR_MS,
          kind: "schedule",
        })),
        ...dueNow.map((jobId) => ({ job_id: jobId, scheduled_at_ms: dueAtMs, kind: "schedule" })),
      ].sort((a, b) => a.job_id.localeCompare(b.job_id)),
    );

    // Every job's next timer is tomorrow's instant under the new rules (never the old one).
    const timers = await shardQuery<JobTimer>(
      shard,
      "SELECT job_id, next_scheduled_ms, next_fire_ms FROM jobs",
    );
    const ourTimers = timers.filter((timer) => jobIds.includes(timer.job_id));
    expect(ourTimers).toHaveLength(23);
    for (const timer of ourTimers) {
      expect(timer.next_scheduled_ms).toBe(oldNextMs + 23 * HOUR_MS);
      expect(timer.next_fire_ms).toBe(oldNextMs + 23 * HOUR_MS);
    }

    const done = await api<TzdataView>("GET", "/v1/tzdata");
    expect(done.body.shards.find((view) => view.shard === shard)).toMatchObject({
      timers_version: NEW_RULES,
      rederiving_to: null,
      jobs_done: 23,
      // The two due timers were kept as they were.
      jobs_changed: 21,
    });

    // /healthz names the version fire times are computed with.
    const health = await SELF.fetch("http://edgecron.test/healthz");
    expect(await health.json()).toEqual({ status: "ok", tzdata: NEW_RULES });

    // Rolling back is another change: the timers go back to the real rules, again from what each job
    // handled. Under those, today's instant (the old one) is still to come for every job: it is
    // another instant than the one fired under the simulated rules.
    await setShardTzdata(env, shard, null);
    const back = await rederiveToEnd(shard);
    expect(back.at(-1)).toMatchObject({ timersVersion: realRules, rederivingTo: null });
    const restored = await shardQuery<JobTimer>(shard, "SELECT job_id, next_scheduled_ms FROM jobs");
    for (const timer of restored.filter((row) => jobIds.includes(row.job_id))) {
      expect(timer.next_scheduled_ms).toBe(oldNextMs);
    }
    await clearFaults(env, shard);
    await loseShardAlarm(env, shard, 0);
  });

  it("restarts from the first job, towards the newest version, when another change comes mid-way", async () => {
    const nowMs = Date.now();
    const schedule = { type: "cron" as const, expr: dailyCronHalfAnHourAhead(nowMs), timezone: ZONE };
    const oldNextMs = nextFireTimes(schedule, nowMs, 1)[0] as number;
    const jobIds = jobIdsOnOneShard("tz", 7);
    const shard = shardOfJob(env, jobIds[0] as string);
    const jobSpec = spec({ schedule, target: { url: targetUrl("/ok/tzdata-twice"), method: "POST" } });
    await pushJobs(
      env,
      jobIds.map((jobId) => snapshot(jobId, jobSpec)),
    );
    await injectFaults(env, shard, { rederiveBatchJobs: 3 });
    await loseShardAlarm(env, shard, 10 * MINUTE_MS);
    const fromMs = nowMs - 6 * HOUR_MS;
    await setShardTzdata(env, shard, {
      version: "rules-a",
      patches: [{ zone: ZONE, fromMs, shiftMinutes: 60 }],
    });
    await shardTzdata(env, shard);
    await runOnePass(shard);
    expect(await shardTzdata(env, shard)).toMatchObject({ rederivingTo: "rules-a", jobsDone: 3 });

    // Another deploy before the first re-derivation finished: Tokyo two hours ahead instead.
    await setShardTzdata(env, shard, {
      version: "rules-b",
      patches: [{ zone: ZONE, fromMs, shiftMinutes: 120 }],
    });
    expect(await shardTzdata(env, shard)).toMatchObject({ rederivingTo: "rules-b", jobsDone: 0 });
    const passes = await rederiveToEnd(shard);
    // Three per pass, every job of the shard (an earlier test's may share it) from the first again.
    const total = passes.at(-1)?.jobsTotal ?? 0;
    expect(total).toBeGreaterThanOrEqual(7);
    const expected = Array.from({ length: Math.ceil(total / 3) }, (_, i) => Math.min(total, (i + 1) * 3));
    expect(passes.map((progress) => progress.jobsDone)).toEqual(expected);
    const timers = await shardQuery<JobTimer>(shard, "SELECT job_id, next_scheduled_ms FROM jobs");
    for (const timer of timers.filter((row) => jobIds.includes(row.job_id))) {
      // Created now: today's instant under rules-b (90 min ago) passed before creation; tomorrow's.
      expect(timer.next_scheduled_ms).toBe(oldNextMs + 22 * HOUR_MS);
    }
    await setShardTzdata(env, shard, null);
    await rederiveToEnd(shard);
    await clearFaults(env, shard);
    await loseShardAlarm(env, shard, 0);
  });

  it("shows shard progress to the admin only", async () => {
    const { key } = await createTenantWithKey("tzdata");
    const res = await api("GET", "/v1/tzdata", { token: key });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
  });
});
