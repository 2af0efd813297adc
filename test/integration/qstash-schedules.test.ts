// /v2/schedules below the client: what is stored (a /v1 cron job in the CRON_TZ zone), the
// upsert by Upstash-Schedule-Id (concurrent creates end with one job), tenant isolation, and the
// QStash error bodies for bad input (nothing stored).

import { SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, BASE, createTenantWithKey } from "../helpers/api";
import { targetUrl, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

const DESTINATION = "https://hooks.example.com/nightly?region=eu&x=1";

function createSchedule(token: string, headers: Record<string, string>, body = "payload") {
  return api<{ scheduleId?: string; error?: string }>("POST", `/v2/schedules/${DESTINATION}`, {
    token,
    body,
    headers: { "content-type": "text/plain", ...headers },
  });
}

interface JobList {
  data: { id: string; name: string; schedule: unknown; target: { url: string }; qstash: unknown }[];
}

describe("POST /v2/schedules/{destination}", () => {
  it("stores a cron job in the CRON_TZ zone, aimed at the destination with its query", async () => {
    const { key } = await createTenantWithKey("qstash-schedules");
    const created = await createSchedule(key, {
      "upstash-cron": "CRON_TZ=Australia/Adelaide 30 2 * * *",
      "upstash-retries": "2",
      "upstash-forward-x-app": "nightly",
      "upstash-callback": "https://hooks.example.com/cb",
    });
    expect(created.status).toBe(200);
    expect(created.body.scheduleId).toMatch(/^scd_/);
    const jobs = await api<JobList>("GET", "/v1/jobs", { token: key });
    expect(jobs.body.data).toHaveLength(1);
    expect(jobs.body.data[0]).toMatchObject({
      name: `qstash-schedule:${created.body.scheduleId}`,
      schedule: { type: "cron", expr: "30 2 * * *", timezone: "Australia/Adelaide" },
      target: { url: DESTINATION, method: "POST", headers: { "x-app": "nightly" }, body: "payload" },
      retry: { max_attempts: 3 },
      qstash: { schedule_id: created.body.scheduleId, callback: "https://hooks.example.com/cb" },
    });
  });

  it("limits the fires of a schedule on a queue by the queue's parallelism", async () => {
    const { key } = await createTenantWithKey("qstash-schedule-queue");
    await api("POST", "/v2/queues", { token: key, body: { queueName: "reports", parallelism: 2 } });
    await createSchedule(key, {
      "upstash-cron": "0 9 * * *",
      "upstash-queue-name": "reports",
      "upstash-schedule-id": "q1",
    });
    const jobs = await api<JobList>("GET", "/v1/jobs", { token: key });
    expect(jobs.body.data[0]?.qstash).toMatchObject({
      flow_control: { key: "queue:reports", parallelism: 2 },
    });
    const schedule = await api<{ queueName: string; parallelism: number }>("GET", "/v2/schedules/q1", {
      token: key,
    });
    expect(schedule.body).toMatchObject({ queueName: "reports", parallelism: 2 });
  });

  it("upserts by Upstash-Schedule-Id (two at once included): one live job per id", async () => {
    const { key } = await createTenantWithKey("qstash-upsert");
    const headers = (cron: string) => ({ "upstash-cron": cron, "upstash-schedule-id": "daily-report" });
    const [first, second] = await Promise.all([
      createSchedule(key, headers("0 6 * * *")),
      createSchedule(key, headers("0 7 * * *")),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await createSchedule(key, headers("0 8 * * *"));
    const listed = await api<{ scheduleId: string; cron: string }[]>("GET", "/v2/schedules", { token: key });
    expect(listed.body).toEqual([expect.objectContaining({ scheduleId: "daily-report", cron: "0 8 * * *" })]);
    const jobs = await api<JobList>("GET", "/v1/jobs?status=ACTIVE", { token: key });
    expect(jobs.body.data).toHaveLength(1);

    // Policies set through /v1 survive an upsert (QStash has no header for them).
    const jobId = jobs.body.data[0]?.id;
    const patched = await api("PATCH", `/v1/jobs/${jobId}`, {
      token: key,
      body: {
        overlap: "skip",
        misfire: { policy: "skip" },
        schedule: { type: "cron", expr: "0 8 * * *", timezone: "UTC", dst: { gap: "skip", overlap: "both" } },
      },
    });
    expect(patched.status).toBe(200);
    await createSchedule(key, headers("15 8 * * *"));
    const kept = await api<JobList>("GET", "/v1/jobs?status=ACTIVE", { token: key });
    expect(kept.body.data[0]).toMatchObject({
      overlap: "skip",
      misfire: { policy: "skip" },
      schedule: { expr: "15 8 * * *", dst: { gap: "skip", overlap: "both" } },
    });

    // A deleted schedule frees its id: the next create makes a new job.
    expect((await api("DELETE", "/v2/schedules/daily-report", { token: key })).status).toBe(200);
    await createSchedule(key, headers("0 9 * * *"));
    const again = await api<{ cron: string }>("GET", "/v2/schedules/daily-report", { token: key });
    expect(again.body.cron).toBe("0 9 * * *");
  });

  it("answers 400 naming every bad header, and stores nothing", async () => {
    const { key } = await createTenantWithKey("qstash-bad");
    const bad = await createSchedule(key, {
      "upstash-cron": "CRON_TZ=Nowhere/Atlantis 61 * * * *",
      "upstash-delay": "10s",
      "upstash-schedule-id": "has spaces",
      "upstash-retries": "many",
    });
    expect(bad.status).toBe(400);
    for (const header of ["Upstash-Cron", "Upstash-Retries"]) expect(bad.body.error).toContain(header);
    const missing = await createSchedule(key, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/Upstash-Cron: is required/);
    const refused = await createSchedule(key, {
      "upstash-cron": "0 9 * * *",
      "upstash-delay": "10s",
      "upstash-schedule-id": "has spaces",
    });
    expect(refused.body.error).toContain("Upstash-Delay");
    expect(refused.body.error).toContain("Upstash-Schedule-Id");
    const queued = await createSchedule(key, {
      "upstash-cron": "0 9 * * *",
      "upstash-queue-name": "bad name",
    });
    expect(queued.status).toBe(400);
    expect(queued.body.error).toContain("Upstash-Queue-Name: must be");
    const binary = await SELF.fetch(`${BASE}/v2/schedules/${DESTINATION}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "upstash-cron": "0 9 * * *" },
      body: new Uint8Array([0xff, 0xfe, 0x00]),
    });
    expect(binary.status).toBe(400);
    expect(await binary.json()).toEqual({ error: expect.stringContaining("body: must be UTF-8") });
    const jobs = await api<JobList>("GET", "/v1/jobs", { token: key });
    expect(jobs.body.data).toEqual([]);
  });
});

describe("a schedule by id", () => {
  it("is paused and resumed by PATCH and POST, and is another tenant's 404", async () => {
    const { key } = await createTenantWithKey("qstash-pause");
    const other = await createTenantWithKey("qstash-other");
    await createSchedule(key, { "upstash-cron": "*/5 * * * *", "upstash-schedule-id": "s1" });
    for (const method of ["PATCH", "POST"]) {
      expect(
        (await api("PATCH" === method ? "PATCH" : "POST", "/v2/schedules/s1/pause", { token: key })).status,
      ).toBe(200);
      expect(
        (await api<{ isPaused: boolean }>("GET", "/v2/schedules/s1", { token: key })).body.isPaused,
      ).toBe(true);
      expect((await api(method, "/v2/schedules/s1/resume", { token: key })).status).toBe(200);
      const resumed = await api<{ isPaused: boolean; nextScheduleTime: number }>("GET", "/v2/schedules/s1", {
        token: key,
      });
      expect(resumed.body.isPaused).toBe(false);
      expect(resumed.body.nextScheduleTime % 300_000).toBe(0);
    }
    for (const [method, path] of [
      ["GET", "/v2/schedules/s1"],
      ["DELETE", "/v2/schedules/s1"],
      ["PATCH", "/v2/schedules/s1/pause"],
    ] as const) {
      const res = await api<{ error: string }>(method, path, { token: other.key });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/not found/);
    }
    expect((await api<unknown[]>("GET", "/v2/schedules", { token: other.key })).body).toEqual([]);
  });
});

describe("a schedule's failed fire", () => {
  it("is its own message in the DLQ: the run's id, with the schedule's id", async () => {
    const { key } = await createTenantWithKey("qstash-schedule-dlq");
    const destination = targetUrl(`/status/500/qstash-schedule-${crypto.randomUUID()}`);
    const created = await api<{ scheduleId: string }>("POST", `/v2/schedules/${destination}`, {
      token: key,
      body: "fire",
      headers: { "content-type": "text/plain", "upstash-cron": "0 0 1 1 *", "upstash-retries": "0" },
    });
    const jobs = await api<JobList>("GET", "/v1/jobs", { token: key });
    const jobId = jobs.body.data[0]?.id;
    const fired = await api<{ run_id: string }>("POST", `/v1/jobs/${jobId}/trigger`, { token: key });
    expect(fired.status).toBe(202);
    const entry = await vi.waitFor(async () => {
      const page = await api<{ messages: { messageId: string; scheduleId?: string; dlqId: string }[] }>(
        "GET",
        "/v2/dlq",
        { token: key },
      );
      expect(page.body.messages).toHaveLength(1);
      return page.body.messages[0];
    }, WAIT);
    expect(entry).toMatchObject({ messageId: fired.body.run_id, scheduleId: created.body.scheduleId });
    const retried = await api<{ responses: { messageId: string }[] }>(
      "POST",
      `/v2/dlq/retry?dlqIds=${entry?.dlqId}`,
      { token: key },
    );
    expect(retried.body.responses).toEqual([{ messageId: fired.body.run_id }]);
  });
});
