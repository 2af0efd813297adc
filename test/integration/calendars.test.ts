import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { insertCalendar, upsertCalendar } from "../../src/db/calendars";
import { pushAndMarkSynced } from "../../src/api/job-service";
import { insertJobs, type StoredJob } from "../../src/db/jobs";
import { shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  placeJob,
  seedTenant,
  shardRows,
  spec,
  stubFor,
  TENANT_ID,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

const iso = (ms: number) => new Date(ms).toISOString();
const london = (expr: string) => ({ type: "cron" as const, expr, timezone: "Europe/London" });

interface RunRow {
  scheduled_at_ms: number;
  state: string;
  kind: string;
  events_json: string;
}

function firstReason(run: RunRow): string {
  return (JSON.parse(run.events_json) as { reason: string }[])[0]?.reason ?? "";
}

describe("a job with two specs and a holiday calendar", () => {
  beforeAll(() => seedTenant());

  it("fires the union of its specs once per instant across the spring-forward change and records the holiday's instants as SKIPPED excluded", async () => {
    const calendar = `uk-test-${Date.now().toString(36)}`;
    await insertCalendar(
      env.DB,
      TENANT_ID,
      calendar,
      { description: "", timezone: "Europe/London", rules: [{ type: "date", date: "2026-03-29" }] },
      Date.now(),
    );
    const jobId = uniqueJobId("union");
    const path = `/ok/${jobId}`;
    // Instants of 2026-03-27..30 (already past): found due on one tick, all within the grace.
    const jobSpec = spec({
      schedules: [london("0 9 * * *"), london("0 9,17 * * *")],
      calendars: [calendar],
      start_at: "2026-03-27T12:00:00Z",
      end_at: "2026-03-30T12:00:00Z",
      misfire: { policy: "fire_now", grace: "300d", max_catch_up: 10 },
      target: { url: targetUrl(path) },
    });
    const createdAtMs = Date.parse("2026-03-27T00:00:00Z");
    await placeJob({
      jobId,
      tenantId: TENANT_ID,
      version: 1,
      status: "ACTIVE",
      specJson: JSON.stringify(jobSpec),
      createdAtMs,
      shard: shardOfJob(env, jobId),
    });
    await runDurableObjectAlarm(stubFor(jobId));
    const runs = await vi.waitFor(async () => {
      const rows = await shardRows<RunRow>(
        jobId,
        "SELECT scheduled_at_ms, state, kind, events_json FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
        jobId,
      );
      expect(rows).toHaveLength(6);
      return rows;
    }, WAIT);
    expect(
      runs.map((run) => [iso(run.scheduled_at_ms), run.state === "SKIPPED" ? firstReason(run) : "ran"]),
    ).toEqual([
      ["2026-03-27T17:00:00.000Z", "ran"],
      ["2026-03-28T09:00:00.000Z", "ran"], // both specs: one run
      ["2026-03-28T17:00:00.000Z", "ran"],
      ["2026-03-29T08:00:00.000Z", "excluded"], // 09:00 BST on the holiday
      ["2026-03-29T16:00:00.000Z", "excluded"],
      ["2026-03-30T08:00:00.000Z", "ran"],
    ]);
    const calls = await vi.waitFor(async () => {
      const received = await targetCalls(path);
      expect(received).toHaveLength(4);
      return received;
    }, WAIT);
    expect(calls.map((call) => call.headers["edgecron-scheduled-at"]).sort()).toEqual([
      "2026-03-27T17:00:00.000Z",
      "2026-03-28T09:00:00.000Z",
      "2026-03-28T17:00:00.000Z",
      "2026-03-30T08:00:00.000Z",
    ]);
  });

  it("re-derives the timer when the calendar is edited: the pending instant is skipped as excluded", async () => {
    const calendar = `edit-test-${Date.now().toString(36)}`;
    const nowMs = Date.now();
    await insertCalendar(
      env.DB,
      TENANT_ID,
      calendar,
      { description: "", timezone: "UTC", rules: [{ type: "date", date: "2001-01-01" }] },
      nowMs,
    );
    const jobId = uniqueJobId("edit");
    const job: StoredJob = {
      id: jobId,
      tenantId: TENANT_ID,
      spec: spec({
        schedule: { type: "cron", expr: "0 12 * * *", timezone: "UTC" },
        calendars: [calendar],
        jitter: "1h",
        target: { url: targetUrl(`/ok/${jobId}`) },
      }),
      status: "ACTIVE",
      version: 1,
      shard: shardOfJob(env, jobId),
      syncedVersion: 0,
      idempotencyKey: null,
      requestHash: null,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    };
    await insertJobs(env.DB, [job]);
    await pushAndMarkSynced(env, [job]);
    const timer = async () =>
      (
        await shardRows<{ next_scheduled_ms: number; next_fire_ms: number; calendars_revision: number }>(
          jobId,
          "SELECT next_scheduled_ms, next_fire_ms, calendars_revision FROM jobs WHERE job_id = ?",
          jobId,
        )
      )[0]!;
    const before = await timer();
    expect(before.calendars_revision).toBe(1);
    const pendingDate = iso(before.next_scheduled_ms).slice(0, 10);

    // Exclude the day the timer points at: the edit marks the job unsynced and re-sends it.
    const edit = await upsertCalendar(
      env.DB,
      TENANT_ID,
      calendar,
      { description: "", timezone: "UTC", rules: [{ type: "date", date: pendingDate }] },
      Date.now(),
    );
    expect(edit.jobs.map((one) => one.id)).toEqual([jobId]);
    await pushAndMarkSynced(env, edit.jobs);
    const after = await timer();
    expect(after.calendars_revision).toBe(2);
    expect(after.next_scheduled_ms).toBe(before.next_scheduled_ms);
    // An excluded instant is recorded at the instant itself: no jitter any more.
    expect(after.next_fire_ms).toBe(after.next_scheduled_ms);

    // Make that instant due (keeping which instant it is) and run the tick.
    await runInDurableObject(stubFor(jobId), (_instance, state) => {
      state.storage.sql.exec("UPDATE jobs SET next_fire_ms = ? WHERE job_id = ?", Date.now() - 1, jobId);
    });
    await runDurableObjectAlarm(stubFor(jobId));
    const [run] = await shardRows<RunRow>(
      jobId,
      "SELECT scheduled_at_ms, state, kind, events_json FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(run?.scheduled_at_ms).toBe(before.next_scheduled_ms);
    expect(run?.state).toBe("SKIPPED");
    expect(firstReason(run!)).toBe("excluded");
    const next = await timer();
    expect(next.next_scheduled_ms).toBe(before.next_scheduled_ms + 86_400_000);
  });
});
