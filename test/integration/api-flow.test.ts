// The API driving real shards: what a client does over HTTP, down to the target and back into
// the run history it reads over HTTP. Nothing of ours is mocked.

import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { jobsDb } from "../helpers/job-databases";
import { shardStub, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface Job {
  id: string;
  shard: number;
  version: number;
  status: string;
}
interface Run {
  id: string;
  state: string;
  attempt: number;
  kind: string;
  scheduled_at: string;
  idempotency_key: string;
  events: { state: string; reason: string; at: string }[];
}

async function shardJob(job: Job) {
  return inShardTables(
    shardStub(job.shard),
    (sql, _storage) =>
      sql
        .exec<{ version: number; status: string }>(
          "SELECT version, status FROM jobs WHERE job_id = ?",
          job.id,
        )
        .toArray()[0],
  );
}

function body(name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "Europe/Berlin" },
    target: { url: targetUrl(path) },
    ...extra,
  };
}

describe("the API driving real shards", () => {
  it("places a created job on its shard and records the confirmed version", async () => {
    const t = await createTenantWithKey();
    const res = await api<Job>("POST", "/v1/jobs", { token: t.key, body: body("placed", "/ok/placed") });
    expect(res.status).toBe(201);
    expect(await shardJob(res.body)).toEqual({ version: 1, status: "ACTIVE" });
    const row = await jobsDb(res.body.id)
      .prepare("SELECT synced_version FROM jobs WHERE id = ?")
      .bind(res.body.id)
      .first();
    expect(row).toEqual({ synced_version: 1 });
  });

  it("places a whole batch, and every later version reaches the shard", async () => {
    const t = await createTenantWithKey();
    const batch = await api<{ created: number; results: { job: Job }[] }>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: { jobs: Array.from({ length: 20 }, (_, i) => body(`batch-${i}`, `/ok/batch-${i}`)) },
    });
    expect(batch.body.created).toBe(20);
    for (const { job } of batch.body.results)
      expect(await shardJob(job)).toEqual({ version: 1, status: "ACTIVE" });
    const job = batch.body.results[0]!.job;
    await api("POST", `/v1/jobs/${job.id}/pause`, { token: t.key });
    expect(await shardJob(job)).toEqual({ version: 2, status: "PAUSED" });
    await api("PATCH", `/v1/jobs/${job.id}`, { token: t.key, body: { name: "renamed" } });
    expect(await shardJob(job)).toEqual({ version: 3, status: "PAUSED" });
    await api("POST", `/v1/jobs/${job.id}/resume`, { token: t.key });
    expect(await shardJob(job)).toEqual({ version: 4, status: "ACTIVE" });
    await api("DELETE", `/v1/jobs/${job.id}`, { token: t.key });
    expect(await shardJob(job)).toEqual({ version: 5, status: "DELETED" });
  });

  it("triggers a job: the run reaches the target and its history is readable over HTTP", async () => {
    const t = await createTenantWithKey();
    const job = (
      await api<Job>("POST", "/v1/jobs", { token: t.key, body: body("trigger", "/ok/api-trigger") })
    ).body;
    const trigger = await api<{ run_id: string; scheduled_at: string }>(
      "POST",
      `/v1/jobs/${job.id}/trigger`,
      { token: t.key },
    );
    expect(trigger.status).toBe(202);
    const run = await vi.waitFor(async () => {
      const res = await api<Run>("GET", `/v1/runs/${trigger.body.run_id}`, { token: t.key });
      expect(res.body.state).toBe("SUCCEEDED");
      return res.body;
    }, WAIT);
    expect(run.kind).toBe("trigger");
    expect(run.idempotency_key).toBe(`${job.id}:${trigger.body.scheduled_at}`);
    expect(run.events.map((event) => event.state)).toEqual([
      "SCHEDULED",
      "ACQUIRED",
      "DISPATCHED",
      "RUNNING",
      "SUCCEEDED",
    ]);
    expect(run.events.every((event) => typeof event.reason === "string" && event.at.endsWith("Z"))).toBe(
      true,
    );
    const listed = await api<{ data: Run[] }>("GET", `/v1/jobs/${job.id}/runs`, { token: t.key });
    expect(listed.body.data.map((found) => found.id)).toEqual([run.id]);
    expect(await targetCalls("/ok/api-trigger")).toHaveLength(1);
    await api("POST", `/v1/jobs/${job.id}/pause`, { token: t.key });
    const refused = await api<{ code: string }>("POST", `/v1/jobs/${job.id}/trigger`, { token: t.key });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("job_not_active");
  });

  it("backfills a range through the API", async () => {
    const t = await createTenantWithKey();
    const job = (
      await api<Job>("POST", "/v1/jobs", {
        token: t.key,
        body: {
          ...body("backfill", "/ok/api-backfill"),
          schedule: { type: "cron", expr: "0 12 * * *", timezone: "UTC" },
        },
      })
    ).body;
    const res = await api<{ created: number; skipped: number; run_ids: string[] }>(
      "POST",
      `/v1/jobs/${job.id}/backfill`,
      {
        token: t.key,
        body: { from: "2026-01-01T00:00:00Z", to: "2026-01-03T23:59:59Z" },
      },
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ created: 3, skipped: 0 });
    await vi.waitFor(async () => expect(await targetCalls("/ok/api-backfill")).toHaveLength(3), WAIT);
  });

  it("dead-letters a failing job, redrives it once, and refuses to retry a run that succeeded", async () => {
    const t = await createTenantWithKey();
    const job = (
      await api<Job>("POST", "/v1/jobs", {
        token: t.key,
        body: body("dead", "/flaky/1/api-dead", { retry: { max_attempts: 1 } }),
      })
    ).body;
    const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${job.id}/trigger`, { token: t.key });
    const letter = await vi.waitFor(async () => {
      const res = await api<{
        data: { id: string; run_id: string; last_error: string; payload: { url: string } }[];
      }>("GET", "/v1/dead-letters", { token: t.key });
      expect(res.body.data).toHaveLength(1);
      return res.body.data[0]!;
    }, WAIT);
    expect(letter.run_id).toBe(trigger.body.run_id);
    expect(letter.payload.url).toBe(targetUrl("/flaky/1/api-dead"));
    expect(letter.last_error).toContain("503");
    const redrive = await api<{ attempt: number }>("POST", `/v1/dead-letters/${letter.id}/redrive`, {
      token: t.key,
    });
    expect(redrive.status).toBe(202);
    expect(redrive.body.attempt).toBe(2);
    await vi.waitFor(async () => {
      const run = await api<Run>("GET", `/v1/runs/${trigger.body.run_id}`, { token: t.key });
      expect(run.body.state).toBe("SUCCEEDED");
    }, WAIT);
    const again = await api<{ code: string }>("POST", `/v1/dead-letters/${letter.id}/redrive`, {
      token: t.key,
    });
    expect(again.status).toBe(409);
    const retry = await api<{ code: string }>("POST", `/v1/runs/${trigger.body.run_id}/retry`, {
      token: t.key,
    });
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe("run_not_retryable");
    const calls = await targetCalls("/flaky/1/api-dead");
    expect(calls.map((call) => call.headers["edgecron-attempt"])).toEqual(["1", "2"]);
  });

  it("fires an interval job first exactly where its create response and the preview said", async () => {
    const t = await createTenantWithKey();
    const created = await api<Job & { next_fire_times: string[]; created_at: string }>("POST", "/v1/jobs", {
      token: t.key,
      body: { ...body("interval-first", "/ok/interval-first"), schedule: { type: "interval", every: "2s" } },
    });
    expect(created.status).toBe(201);
    const job = created.body;
    const promisedFirst = job.next_fire_times[0] as string;
    const preview = await api<{ fire_times: string[] }>("POST", "/v1/schedules/preview", {
      token: t.key,
      body: { schedule: { type: "interval", every: "2s" }, from: job.created_at, count: 1 },
    });
    expect(preview.body.fire_times).toEqual([promisedFirst]);
    // One `every` after creation, not at creation.
    expect(Date.parse(promisedFirst) - Date.parse(job.created_at)).toBe(2_000);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(promisedFirst)), WAIT);
    await runDurableObjectAlarm(shardStub(job.shard));
    await vi.waitFor(async () => expect(await targetCalls("/ok/interval-first")).not.toHaveLength(0), WAIT);
    const [first] = await targetCalls("/ok/interval-first");
    expect(first?.headers["edgecron-scheduled-at"]).toBe(promisedFirst);
    // Nothing fired at creation: the earliest run is the promised one.
    const scheduled = await shardScheduledTimes(job);
    expect(new Date(Math.min(...scheduled)).toISOString()).toBe(promisedFirst);
    await api("DELETE", `/v1/jobs/${job.id}`, { token: t.key });
  });

  it("refuses a backfill reaching into the future, naming `to`, and leaves the next instant to the schedule", async () => {
    const t = await createTenantWithKey();
    const job = (
      await api<Job>("POST", "/v1/jobs", {
        token: t.key,
        body: {
          ...body("backfill-future", "/ok/backfill-future"),
          schedule: { type: "cron", expr: "0 * * * *", timezone: "UTC" },
        },
      })
    ).body;
    const hourMs = 3_600_000;
    const nextHourMs = (Math.floor(Date.now() / hourMs) + 1) * hourMs;
    const res = await api<{ code: string; errors: { path: string; message: string }[] }>(
      "POST",
      `/v1/jobs/${job.id}/backfill`,
      {
        token: t.key,
        body: {
          from: new Date(nextHourMs - 3 * hourMs).toISOString(),
          to: new Date(nextHourMs + 365 * 24 * hourMs).toISOString(),
        },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((error) => error.path)).toEqual(["to"]);
    expect(res.body.errors[0]?.message).toContain("must not be in the future");
    // Nothing ran, and the schedule still holds its next instant.
    expect(await shardScheduledTimes(job)).toEqual([]);
    const [timer] = await shardTimer(job);
    expect(timer?.next_scheduled_ms).toBe(nextHourMs);
    await api("DELETE", `/v1/jobs/${job.id}`, { token: t.key });
  });
});

async function shardTimer(job: Job) {
  return inShardTables(shardStub(job.shard), (sql, _storage) =>
    sql
      .exec<{ next_fire_ms: number; next_scheduled_ms: number }>(
        "SELECT next_fire_ms, next_scheduled_ms FROM jobs WHERE job_id = ?",
        job.id,
      )
      .toArray(),
  );
}

async function shardScheduledTimes(job: Job): Promise<number[]> {
  return inShardTables(shardStub(job.shard), (sql, _storage) =>
    sql
      // Live rows, and the records of runs that settled and left `runs`.
      .exec<{ scheduled_at_ms: number }>(
        "SELECT scheduled_at_ms FROM runs WHERE job_id = ?1 UNION SELECT scheduled_at_ms FROM run_history WHERE job_id = ?1",
        job.id,
      )
      .toArray()
      .map((row) => row.scheduled_at_ms),
  );
}
