import { env, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Calendar, Job, Problem } from "../../src/client/types";
import { insertCalendar, upsertCalendar } from "../../src/db/calendars";
import { jobStores } from "../../src/db/databases";
import { insertJobs, type StoredJob } from "../../src/db/jobs";
import { syncJobs } from "../../src/service/job-writes";
import { shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { jobsDb } from "../helpers/job-databases";
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
import { inShardTables } from "../helpers/shard-state";

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
      endsAtMs: null,
    };
    await insertJobs(jobsDb(jobId), [job]);
    await syncJobs(env, [job]);
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
      jobStores(env),
      TENANT_ID,
      calendar,
      { description: "", timezone: "UTC", rules: [{ type: "date", date: pendingDate }] },
      Date.now(),
    );
    expect(edit.jobs.map((one) => one.id)).toEqual([jobId]);
    await syncJobs(env, edit.jobs);
    const after = await timer();
    expect(after.calendars_revision).toBe(2);
    expect(after.next_scheduled_ms).toBe(before.next_scheduled_ms);
    // An excluded instant is recorded at the instant itself: no jitter any more.
    expect(after.next_fire_ms).toBe(after.next_scheduled_ms);

    // Make that instant due (keeping which instant it is) and run the tick.
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("UPDATE jobs SET next_fire_ms = ? WHERE job_id = ?", Date.now() - 1, jobId);
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

describe("the calendars API and jobs that name calendars", () => {
  const rulesOf = (dates: string[]) => dates.map((date) => ({ type: "date", date }));

  it("creates, lists, reads, replaces and deletes a calendar, refusing bad bodies field by field", async () => {
    const { key } = await createTenantWithKey("cal-crud");
    const bad = await api<Problem>("POST", "/v1/calendars", {
      token: key,
      body: {
        name: "Bad Name",
        timezone: "Mars/Base",
        rules: [{ type: "range", from: "2026-02-02", to: "2026-02-01" }],
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((error) => error.path).sort()).toEqual(["name", "rules.0.to", "timezone"]);
    const created = await api<Calendar>("POST", "/v1/calendars", {
      token: key,
      body: { name: "uk-holidays", timezone: "Europe/London", rules: rulesOf(["2026-12-25"]) },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "uk-holidays", description: "", revision: 1 });
    const again = await api<Problem>("POST", "/v1/calendars", {
      token: key,
      body: { name: "uk-holidays", timezone: "UTC", rules: rulesOf(["2026-01-01"]) },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("calendar_exists");
    const list = await api<{ data: Calendar[] }>("GET", "/v1/calendars", { token: key });
    expect(list.body.data.map((calendar) => calendar.name)).toEqual(["uk-holidays"]);
    const replaced = await api<Calendar>("PUT", "/v1/calendars/uk-holidays", {
      token: key,
      body: { timezone: "Europe/London", rules: rulesOf(["2026-12-25", "2026-12-26"]) },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.revision).toBe(2);
    const put = await api<Calendar>("PUT", "/v1/calendars/fresh", {
      token: key,
      body: { timezone: "UTC", rules: [{ type: "weekly", days: ["sat", "sun"] }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.revision).toBe(1);
    expect((await api("DELETE", "/v1/calendars/fresh", { token: key })).status).toBe(200);
    expect((await api<Problem>("GET", "/v1/calendars/fresh", { token: key })).body.code).toBe(
      "calendar_not_found",
    );
  });

  it("refuses to delete a calendar a job names, naming the job", async () => {
    const { key } = await createTenantWithKey("cal-in-use");
    await api("POST", "/v1/calendars", {
      token: key,
      body: { name: "office", timezone: "UTC", rules: rulesOf(["2099-01-01"]) },
    });
    const job = await api<Job>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({
        name: "uses-office",
        schedule: { type: "cron", expr: "0 9 * * *", timezone: "UTC" },
        calendars: ["office"],
      }),
    });
    expect(job.status).toBe(201);
    const refused = await api<Problem>("DELETE", "/v1/calendars/office", { token: key });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("calendar_in_use");
    expect(refused.body.detail).toContain(job.body.id);
    const detail = await api<Calendar & { jobs: { id: string }[] }>("GET", "/v1/calendars/office", {
      token: key,
    });
    expect(detail.body.jobs.map((one) => one.id)).toEqual([job.body.id]);
    await api("DELETE", `/v1/jobs/${job.body.id}`, { token: key });
    expect((await api("DELETE", "/v1/calendars/office", { token: key })).status).toBe(200);
  });

  it("lists next_fire_times and previews without the excluded instants, and refuses unknown calendars and ambiguous specs", async () => {
    const { key } = await createTenantWithKey("cal-jobs");
    await api("POST", "/v1/calendars", {
      token: key,
      body: { name: "weekend", timezone: "Europe/London", rules: [{ type: "weekly", days: ["sat", "sun"] }] },
    });
    const schedules = [london("0 9 * * *"), london("0 9,17 * * *")];
    const preview = await api<{ fire_times: string[]; excluded: string[] }>("POST", "/v1/schedules/preview", {
      token: key,
      body: { schedules, calendars: ["weekend"], from: "2027-03-26T12:00:00Z", count: 3 },
    });
    expect(preview.status).toBe(200);
    // Fri 26 March 2027 17:00 GMT, then Mon 29 March (BST after the change on the 28th).
    expect(preview.body.fire_times).toEqual([
      "2027-03-26T17:00:00.000Z",
      "2027-03-29T08:00:00.000Z",
      "2027-03-29T16:00:00.000Z",
    ]);
    expect(preview.body.excluded).toEqual([
      "2027-03-27T09:00:00.000Z",
      "2027-03-27T17:00:00.000Z",
      "2027-03-28T08:00:00.000Z",
      "2027-03-28T16:00:00.000Z",
    ]);
    const created = await api<Job>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({
        schedule: undefined,
        schedules,
        calendars: ["weekend"],
        start_at: "2027-03-26T12:00:00Z",
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body.next_fire_times.slice(0, 3)).toEqual(preview.body.fire_times);
    const read = await api<Job>("GET", `/v1/jobs/${created.body.id}?next=3`, { token: key });
    expect(read.body.next_fire_times).toEqual(preview.body.fire_times);

    const refused = await api<Problem>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({ schedules, calendars: ["weekend", "nope"], name: "" }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.map((error) => error.path).sort()).toEqual([
      "calendars.1",
      "name",
      "schedules",
    ]);
    const neither = await api<Problem>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({ schedule: undefined }),
    });
    expect(neither.body.errors?.map((error) => error.path)).toEqual(["schedule"]);
    await api("DELETE", `/v1/jobs/${created.body.id}`, { token: key });
  });

  it("re-derives the jobs of a calendar replaced through the API", async () => {
    const { key } = await createTenantWithKey("cal-put");
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await api("POST", "/v1/calendars", {
      token: key,
      body: { name: "closures", timezone: "UTC", rules: rulesOf(["2001-01-01"]) },
    });
    const job = await api<Job>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({
        schedule: { type: "cron", expr: "0 12 * * *", timezone: "UTC" },
        calendars: ["closures"],
      }),
    });
    expect(job.body.next_fire_times).toHaveLength(5);
    const put = await api("PUT", "/v1/calendars/closures", {
      token: key,
      body: { timezone: "UTC", rules: rulesOf([tomorrow, new Date(Date.now()).toISOString().slice(0, 10)]) },
    });
    expect(put.status).toBe(200);
    const read = await api<Job>("GET", `/v1/jobs/${job.body.id}`, { token: key });
    expect(read.body.next_fire_times.some((iso) => iso.startsWith(tomorrow))).toBe(false);
    const [shardJob] = await shardRows<{ calendars_revision: number; calendars_json: string }>(
      job.body.id,
      "SELECT calendars_revision, calendars_json FROM jobs WHERE job_id = ?",
      job.body.id,
    );
    expect(shardJob?.calendars_revision).toBe(2);
    expect(shardJob?.calendars_json).toContain(tomorrow);
    await api("DELETE", `/v1/jobs/${job.body.id}`, { token: key });
  });
});
