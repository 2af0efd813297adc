// A simulated tz database change against `wrangler dev`: a job is created under the real rules,
// then the server restarts on the same state with other rules for its zone (the test-only
// EDGECRON_TEST_TZDATA binding: a version string and a zone-rule patch), as a deploy with a new
// tz database would. The shard must notice on its own, re-derive the timer, and fire the instant
// of the new rules exactly once (an hour before the old one).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  apiClient,
  createTenantWithKey,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

const HOUR_MS = 3_600_000;
const ZONE = "Asia/Tokyo"; // +09:00, no DST: wall time is plain arithmetic
const NEW_RULES = "e2e-rules-2";

/** A daily 6-field cron at Tokyo's wall time of `atMs` (whole seconds). */
function dailyCronAt(atMs: number): string {
  const wall = new Date(atMs + 9 * HOUR_MS);
  return `${wall.getUTCSeconds()} ${wall.getUTCMinutes()} ${wall.getUTCHours()} * * *`;
}

interface TzdataView {
  tzdata: string;
  up_to_date: boolean;
  shards: { shard: number; timers_version: string | null; rederiving_to: string | null }[];
}

describe("a tz database change under wrangler dev", () => {
  let target: TargetServer;
  let server: SchedulerProcess | undefined;

  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeState(server.stateDir);
    await target.close();
  });

  it("re-derives a stored timer after a restart with new zone rules and fires the new instant once", async () => {
    const vars = { EDGECRON_TEST_HOOKS: "1", MAINTENANCE_INTERVAL_MS: "2000" };
    server = await startScheduler({ vars });
    const _admin = apiClient(server.baseUrl, ADMIN_TOKEN);
    const before = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as { tzdata: string };
    expect(before.tzdata).toMatch(/^intl-[0-9a-f]{12}$/);
    const { key } = await createTenantWithKey(server.baseUrl, { name: "tzdata-e2e" });

    // Under the new rules (Tokyo one hour ahead) the job's instant is ~60 s away; under the old, an hour later.
    const newInstantMs = Math.ceil((Date.now() + 60_000) / 1_000) * 1_000;
    const oldInstantMs = newInstantMs + HOUR_MS;
    const path = `/tzdata-${Date.now()}`;
    const created = await apiClient(server.baseUrl, key)<{ id: string; next_fire_times: string[] }>(
      "POST",
      "/v1/jobs",
      {
        name: "tokyo-daily",
        schedule: { type: "cron", expr: dailyCronAt(oldInstantMs), timezone: ZONE },
        target: { url: `${target.url}${path}` },
        misfire: { policy: "fire_now", grace: "10m", max_catch_up: 10 },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.next_fire_times[0]).toBe(new Date(oldInstantMs).toISOString());

    // The deploy: same state, another tz database.
    await server.stop();
    const patch = { zone: ZONE, fromMs: Date.now() - 6 * HOUR_MS, shiftMinutes: 60 };
    server = await startScheduler({
      stateDir: server.stateDir,
      vars: { ...vars, EDGECRON_TEST_TZDATA: JSON.stringify({ version: NEW_RULES, patches: [patch] }) },
    });
    const after = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as { tzdata: string };
    expect(after).toEqual({ status: "ok", tzdata: NEW_RULES });

    // Every shard catches up by itself (the maintenance pass calls each one).
    const restarted = apiClient(server.baseUrl, ADMIN_TOKEN);
    const view = await waitUntil(
      async () => {
        const res = await restarted<TzdataView>("GET", "/v1/tzdata");
        return res.body.up_to_date ? res.body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: "every shard's timers to use the new rules" },
    );
    expect(view.tzdata).toBe(NEW_RULES);
    expect(
      view.shards.every((shard) => shard.timers_version === NEW_RULES && shard.rederiving_to === null),
    ).toBe(true);

    const calls = await waitUntil(
      async () => {
        const ours = target.calls.filter((call) => call.path === path);
        return ours.length > 0 ? ours : undefined;
      },
      {
        timeoutMs: Math.max(10_000, newInstantMs - Date.now() + 20_000),
        intervalMs: 200,
        what: "the re-derived fire",
      },
    );
    expect(calls[0]?.headers["edgecron-scheduled-at"]).toBe(new Date(newInstantMs).toISOString());
    // Nothing else of this job fires: not the old instant (an hour away), not the new one again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(target.calls.filter((call) => call.path === path)).toHaveLength(1);
  }, 180_000);
});
