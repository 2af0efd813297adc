// Delivery windows and flexible windows through the real API, shard, queue and target: instants
// outside the window fold into one deferred run at the opening (or are skipped), a retry due after
// the close waits for the next opening, and previews and next_fire_times show where runs fire.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Job, Problem } from "../../src/client/types";
import { shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
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

disarmShardsAfterEach();

const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A fixed-offset zone in which it is about noon now, so runs found due now are inside a window of
 * the local day (`Etc/GMT-5` is UTC+5: the Etc sign is reversed).
 */
function noonZone(nowMs: number): { zone: string; offsetHours: number } {
  const offsetHours = 12 - new Date(nowMs).getUTCHours();
  const zone = offsetHours === 0 ? "UTC" : `Etc/GMT${offsetHours > 0 ? "-" : "+"}${Math.abs(offsetHours)}`;
  return { zone, offsetHours };
}

interface RunRow {
  scheduled_at_ms: number;
  fire_at_ms: number;
  state: string;
  next_attempt_at_ms: number | null;
  events_json: string;
}

function reasons(run: RunRow): string[] {
  return (JSON.parse(run.events_json) as { reason: string }[]).map((event) => event.reason);
}

describe("a job with a delivery window on its shard", () => {
  beforeAll(() => seedTenant());

  it("runs inside the window, folds a closed period into one run at the opening, and records the rest SKIPPED", async () => {
    const nowMs = Date.now();
    const { zone, offsetHours } = noonZone(nowMs);
    // A local day ten days ago, 17:45 to 10:00 the next morning (local wall time as UTC ms).
    const dayMs = Math.floor((nowMs + offsetHours * HOUR_MS) / 86_400_000) * 86_400_000 - 10 * 86_400_000;
    const utc = (localHours: number) => dayMs + localHours * HOUR_MS - offsetHours * HOUR_MS;
    const jobId = uniqueJobId("window");
    const path = `/ok/${jobId}`;
    const jobSpec = spec({
      schedule: { type: "cron", expr: "30 * * * *", timezone: zone },
      window: { between: ["08:00", "20:00"], outside: "defer" },
      start_at: iso(utc(17.75)),
      end_at: iso(utc(34)),
      misfire: { policy: "fire_now", grace: "300d", max_catch_up: 10 },
      target: { url: targetUrl(path) },
    });
    await placeJob({
      jobId,
      tenantId: TENANT_ID,
      version: 1,
      status: "ACTIVE",
      specJson: JSON.stringify(jobSpec),
      createdAtMs: utc(17),
      shard: shardOfJob(env, jobId),
    });
    await runDurableObjectAlarm(stubFor(jobId));
    const runs = await vi.waitFor(async () => {
      const rows = await shardRows<RunRow>(
        jobId,
        "SELECT scheduled_at_ms, fire_at_ms, state, next_attempt_at_ms, events_json FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
        jobId,
      );
      expect(rows).toHaveLength(16); // 18:30 .. 09:30 local
      return rows;
    }, WAIT);
    const ran = runs.filter((run) => run.state !== "SKIPPED");
    expect(ran.map((run) => [iso(run.scheduled_at_ms), iso(run.fire_at_ms)])).toEqual([
      [iso(utc(18.5)), iso(utc(18.5))],
      [iso(utc(19.5)), iso(utc(19.5))],
      [iso(utc(31.5)), iso(utc(32))], // 07:30 is the closed period's last instant: it runs at 08:00
      [iso(utc(32.5)), iso(utc(32.5))],
      [iso(utc(33.5)), iso(utc(33.5))],
    ]);
    const skipped = runs.filter((run) => run.state === "SKIPPED");
    expect(skipped.map((run) => iso(run.scheduled_at_ms))).toEqual(
      Array.from({ length: 11 }, (_, index) => iso(utc(20.5 + index))),
    );
    for (const run of skipped) expect(reasons(run)).toContain("outside_window_folded");
    const calls = await vi.waitFor(async () => {
      const received = await targetCalls(path);
      expect(received).toHaveLength(5);
      return received;
    }, WAIT);
    // The idempotency key stays the nominal instant, also for the deferred run.
    expect(calls.map((call) => call.headers["edgecron-scheduled-at"]).sort()).toEqual(
      ran.map((run) => iso(run.scheduled_at_ms)),
    );
  });

  it("skips outside instants as outside_window with outside: skip", async () => {
    const nowMs = Date.now();
    const { zone, offsetHours } = noonZone(nowMs);
    const dayMs = Math.floor((nowMs + offsetHours * HOUR_MS) / 86_400_000) * 86_400_000 - 5 * 86_400_000;
    const utc = (localHours: number) => dayMs + localHours * HOUR_MS - offsetHours * HOUR_MS;
    const jobId = uniqueJobId("window_skip");
    const jobSpec = spec({
      schedule: { type: "cron", expr: "0 */4 * * *", timezone: zone },
      window: { between: ["09:00", "17:00"], outside: "skip" },
      start_at: iso(utc(0.5)),
      end_at: iso(utc(23.5)),
      misfire: { policy: "fire_now", grace: "300d", max_catch_up: 10 },
      target: { url: targetUrl(`/ok/${jobId}`) },
    });
    await placeJob({
      jobId,
      tenantId: TENANT_ID,
      version: 1,
      status: "ACTIVE",
      specJson: JSON.stringify(jobSpec),
      createdAtMs: utc(0),
      shard: shardOfJob(env, jobId),
    });
    await runDurableObjectAlarm(stubFor(jobId));
    const runs = await vi.waitFor(async () => {
      const rows = await shardRows<RunRow>(
        jobId,
        "SELECT scheduled_at_ms, fire_at_ms, state, next_attempt_at_ms, events_json FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
        jobId,
      );
      expect(rows).toHaveLength(5); // 04, 08, 12, 16, 20
      return rows;
    }, WAIT);
    expect(
      runs.map((run) => [iso(run.scheduled_at_ms), run.state === "SKIPPED" ? reasons(run)[0] : "ran"]),
    ).toEqual([
      [iso(utc(4)), "outside_window"],
      [iso(utc(8)), "outside_window"],
      [iso(utc(12)), "ran"],
      [iso(utc(16)), "ran"],
      [iso(utc(20)), "outside_window"],
    ]);
  });

  it("holds a retry due after the window's close until the next opening", async () => {
    const nowMs = Date.now();
    const { zone, offsetHours } = noonZone(nowMs);
    const localNowMs = nowMs + offsetHours * HOUR_MS;
    const localMinute = Math.floor((localNowMs % 86_400_000) / 60_000);
    const close = localMinute + 3;
    const clock = (minute: number) =>
      `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
    const jobId = uniqueJobId("window_retry");
    const path = `/status/500/${jobId}`;
    const jobSpec = spec({
      schedule: { type: "once", at: iso(nowMs - 1_000) },
      window: { timezone: zone, between: ["00:00", clock(close)], outside: "defer" },
      misfire: { policy: "fire_now", grace: "1h", max_catch_up: 10 },
      retry: { max_attempts: 3, backoff: { initial: "10m", max: "1h", multiplier: 2, jitter: "none" } },
      target: { url: targetUrl(path) },
    });
    await placeJob({
      jobId,
      tenantId: TENANT_ID,
      version: 1,
      status: "ACTIVE",
      specJson: JSON.stringify(jobSpec),
      createdAtMs: nowMs - 5_000,
      shard: shardOfJob(env, jobId),
    });
    await runDurableObjectAlarm(stubFor(jobId));
    const run = await vi.waitFor(async () => {
      const [row] = await shardRows<RunRow>(
        jobId,
        "SELECT scheduled_at_ms, fire_at_ms, state, next_attempt_at_ms, events_json FROM runs WHERE job_id = ? AND state = 'RETRYING'",
        jobId,
      );
      expect(row).toBeDefined();
      return row as RunRow;
    }, WAIT);
    expect((await targetCalls(path)).length).toBe(1);
    // The next local midnight in the zone: the window's next opening.
    const nextMidnightMs = (Math.floor(localNowMs / 86_400_000) + 1) * 86_400_000 - offsetHours * HOUR_MS;
    expect(iso(run.next_attempt_at_ms ?? 0)).toBe(iso(nextMidnightMs));
    expect(reasons(run).at(-1)).toMatch(/waits for the window to open/);
  });
});

describe("a run the shard would send ahead of its instant", () => {
  beforeAll(() => seedTenant());

  it("is not sent when the window skips its instant: it is recorded SKIPPED and never called", async () => {
    const nowMs = Date.now();
    const { zone } = noonZone(nowMs);
    const jobId = uniqueJobId("window_ahead");
    const path = `/ok/${jobId}`;
    // Due in 2.5 s, inside the dispatch lead (5 s): a run that may fire would be queued ahead now.
    const atMs = Math.ceil((nowMs + 2_500) / 1_000) * 1_000;
    const jobSpec = spec({
      schedule: { type: "once", at: iso(atMs) },
      window: { timezone: zone, between: ["18:00", "19:00"], outside: "skip" },
      target: { url: targetUrl(path) },
    });
    await placeJob({
      jobId,
      tenantId: TENANT_ID,
      version: 1,
      status: "ACTIVE",
      specJson: JSON.stringify(jobSpec),
      createdAtMs: nowMs,
      shard: shardOfJob(env, jobId),
    });
    const run = await vi.waitFor(async () => {
      const [row] = await shardRows<RunRow>(
        jobId,
        "SELECT scheduled_at_ms, fire_at_ms, state, next_attempt_at_ms, events_json FROM runs WHERE job_id = ?",
        jobId,
      );
      expect(row?.state).toBe("SKIPPED");
      return row as RunRow;
    }, WAIT);
    expect(reasons(run)).toContain("outside_window");
    expect(await targetCalls(path)).toEqual([]);
  });
});

describe("the API with window and flexible_window", () => {
  it("refuses bad windows naming every field, and stores nothing", async () => {
    const { key } = await createTenantWithKey("window-bad");
    const res = await api<Problem>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({
        window: {
          timezone: "Nowhere/Else",
          days: ["MON-FRY"],
          between: ["08:00", "25:00"],
          outside: "later",
        },
        flexible_window: { max: "3d" },
      }),
    });
    expect(res.status).toBe(400);
    expect((res.body.errors ?? []).map((error) => error.path).sort()).toEqual([
      "flexible_window.max",
      "window.between.1",
      "window.days.0",
      "window.outside",
      "window.timezone",
    ]);
    const list = await api<{ data: unknown[] }>("GET", "/v1/jobs", { token: key });
    expect(list.body.data).toEqual([]);
  });

  it("shows moved instants in next_fire_times and the preview, and the flexible point the job will use", async () => {
    const { key } = await createTenantWithKey("window-ok");
    const schedule = { type: "cron", expr: "0 6,12 * * *", timezone: "Europe/Berlin" };
    const window = { days: ["MON-FRI"], between: ["08:00", "20:00"] };
    const created = await api<Job>("POST", "/v1/jobs", {
      token: key,
      body: jobBody({ schedule, window, flexible_window: { max: "15m" } }),
    });
    expect(created.status).toBe(201);
    expect(created.body.window).toEqual({ ...window, outside: "defer" });
    expect(created.body.flexible_window).toEqual({ max: "15m" });
    const preview = await api<{
      fire_times: string[];
      fires: { scheduled_at: string; fire_at: string }[];
      skipped: { scheduled_at: string; reason: string }[];
    }>("POST", "/v1/schedules/preview", {
      token: key,
      body: { schedule, window, flexible_window: { max: "15m" }, job_id: created.body.id, count: 5 },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.fire_times).toEqual(created.body.next_fire_times);
    for (const fire of preview.body.fires) {
      const local = new Intl.DateTimeFormat("en-GB", {
        timeZone: "Europe/Berlin",
        weekday: "short",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(Date.parse(fire.fire_at));
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) (08|09|10|11|12|13|14|15|16|17|18|19):/);
      const offsetMs = Date.parse(fire.fire_at) - Date.parse(fire.scheduled_at);
      expect(offsetMs).toBeGreaterThanOrEqual(0);
    }
    // 06:00 Berlin is before the opening: moved to 08:00 (plus its flexible offset), never skipped
    // on weekdays; a weekend's instants fold into Monday's 08:00 run.
    expect(preview.body.fires.some((fire) => fire.scheduled_at !== fire.fire_at)).toBe(true);
    const skip = await api<{ fire_times: string[]; skipped: { reason: string }[] }>(
      "POST",
      "/v1/schedules/preview",
      {
        token: key,
        body: { schedule, window: { ...window, outside: "skip" }, count: 10, from: "2026-12-04T00:00:00Z" },
      },
    );
    expect(skip.body.fire_times).toEqual([
      "2026-12-04T11:00:00.000Z",
      "2026-12-07T11:00:00.000Z",
      "2026-12-08T11:00:00.000Z",
      "2026-12-09T11:00:00.000Z",
      "2026-12-10T11:00:00.000Z",
      "2026-12-11T11:00:00.000Z",
      "2026-12-14T11:00:00.000Z",
      "2026-12-15T11:00:00.000Z",
      "2026-12-16T11:00:00.000Z",
      "2026-12-17T11:00:00.000Z",
    ]);
    expect(new Set(skip.body.skipped.map((one) => one.reason))).toEqual(new Set(["outside_window"]));
  });
});
