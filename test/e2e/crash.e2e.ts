// The ghost-task test: 2,000 jobs due inside a 10 s window, `wrangler dev` killed with SIGKILL
// (the whole process group) at a moment inside the window, then restarted on the same state.
// Required: every idempotency key reaches the target (0 lost); a key arrives twice only if its
// run was in flight at the kill. Local queues lose in-flight messages on restart: leases recover.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  apiClient,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

const JOBS = Number(process.env.CRASH_JOBS ?? 2_000);
const WINDOW_MS = 10_000;
// Kill moments inside the window: early, middle, late (plus a little randomness).
const KILL_OFFSETS_MS = [1_500, 5_000, 8_500];
const VARS = { DISPATCH_LEASE_MS: "4000" };

interface Round {
  killAtOffsetMs: number;
  lost: number;
  duplicates: number;
  duplicatesNotInFlight: number;
  recoveryMs: number;
}

async function crashRound(target: TargetServer, killOffsetMs: number): Promise<Round> {
  let server: SchedulerProcess = await startScheduler({ vars: VARS });
  const admin = apiClient(server.baseUrl, ADMIN_TOKEN);
  const tenant = await admin<{ id: string }>("POST", "/v1/tenants", { name: `crash-${killOffsetMs}` });
  const key = (await admin<{ key: string }>("POST", "/v1/api-keys", { tenant_id: tenant.body.id })).body.key;
  const windowStartMs = Date.now() + 12_000;
  const prefix = `/crash-${killOffsetMs}-${Date.now()}`;
  const jobs = Array.from({ length: JOBS }, (_, i) => ({
    name: `crash-${i}`,
    schedule: {
      type: "once",
      at: new Date(windowStartMs + Math.floor((i * WINDOW_MS) / JOBS)).toISOString(),
    },
    target: { url: `${target.url}${prefix}/${i}` },
    timeout: "5s",
    retry: { max_attempts: 5, backoff: { initial: "1s", max: "5s", multiplier: 2, jitter: "none" } },
  }));
  let api = apiClient(server.baseUrl, key);
  for (let i = 0; i < jobs.length; i += 1_000) {
    const res = await api<{ created: number }>("POST", "/v1/jobs/batch", { jobs: jobs.slice(i, i + 1_000) });
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(Math.min(1_000, jobs.length - i));
  }
  const killAtMs = windowStartMs + killOffsetMs + Math.floor(Math.random() * 500);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, killAtMs - Date.now())));
  await server.kill();
  const killedAtMs = Date.now();
  server = await startScheduler({ stateDir: server.stateDir, vars: VARS });
  api = apiClient(server.baseUrl, key);
  const restartedAtMs = Date.now();
  try {
    const mine = () => target.calls.filter((call) => call.path.startsWith(prefix));
    try {
      await waitUntil(() => new Set(mine().map((call) => call.path)).size >= JOBS, {
        timeoutMs: 120_000,
        intervalMs: 500,
        what: `all ${JOBS} jobs to reach the target`,
      });
    } catch (error) {
      const stats = await api("GET", "/v1/stats");
      const letters = await api<{ data: unknown[] }>("GET", "/v1/dead-letters?limit=5");
      console.log(
        `[crash] stuck: ${JSON.stringify(stats.body)} dead letters: ${JSON.stringify(letters.body.data)}`,
      );
      throw error;
    }
    const recoveryMs = Date.now() - restartedAtMs;
    // Runs that were RUNNING at the kill retry only when their lease expires: wait until nothing
    // is in flight, so every duplicate the kill can cause has happened before we count.
    const inFlightStates = ["SCHEDULED", "ACQUIRED", "DISPATCHED", "RUNNING", "FAILED", "RETRYING"];
    await waitUntil(
      async () => {
        const stats = await api<{ runs_by_state: Record<string, number> }>("GET", "/v1/stats");
        return inFlightStates.every((state) => (stats.body.runs_by_state[state] ?? 0) === 0);
      },
      { timeoutMs: 90_000, intervalMs: 1_000, what: "no run left in flight" },
    );
    const byKey = new Map<string, number[]>();
    for (const call of mine()) {
      const keyHeader = String(call.headers["idempotency-key"]);
      byKey.set(keyHeader, [...(byKey.get(keyHeader) ?? []), call.receivedAtMs]);
    }
    const duplicates = [...byKey.values()].filter((times) => times.length > 1);
    // In flight at the kill: first received before it, again only after the restart.
    const duplicatesNotInFlight = duplicates.filter(
      (times) => !(times[0]! <= killedAtMs && times.slice(1).every((at) => at >= restartedAtMs)),
    ).length;
    return {
      killAtOffsetMs: killAtMs - windowStartMs,
      lost: JOBS - byKey.size,
      duplicates: duplicates.length,
      duplicatesNotInFlight,
      recoveryMs,
    };
  } finally {
    await server.stop();
    removeState(server.stateDir);
  }
}

describe("e2e: SIGKILL mid-burst loses no job", () => {
  let target: TargetServer;
  const rounds: Round[] = [];

  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    console.log(
      `[crash] summary: jobs=${JOBS} per round, kills=${rounds.length}, lost=${rounds.reduce((n, r) => n + r.lost, 0)}, duplicates=${rounds.reduce((n, r) => n + r.duplicates, 0)} (all in flight at the kill: ${rounds.every((r) => r.duplicatesNotInFlight === 0)})`,
    );
    await target?.close();
  });

  it.each(KILL_OFFSETS_MS)(
    "kill %i ms into the window: 0 lost, duplicates only for runs in flight",
    async (offsetMs) => {
      const round = await crashRound(target, offsetMs);
      rounds.push(round);
      console.log(`[crash] ${JSON.stringify(round)}`);
      expect(round.lost).toBe(0);
      expect(round.duplicatesNotInFlight).toBe(0);
    },
    240_000,
  );
});
