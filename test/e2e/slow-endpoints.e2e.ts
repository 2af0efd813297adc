// A hostile tenant's hanging target and hanging alert webhook, beside another tenant's every-second
// job, through a real `wrangler dev` over loopback: the other tenant's lateness stays what it was
// before the hang began, and its runs keep reaching the history while the hang lasts.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  apiClient,
  createTenantWithKey,
  type ReceivedCall,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

/** The hanging target answers only after this long (well inside the jobs' 30 s timeout). */
const HANG_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A target that holds every request open for HANG_MS. */
async function startHangingTarget(): Promise<{
  url: string;
  hits: () => number;
  close: () => Promise<void>;
}> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    req.resume();
    const timer = setTimeout(() => res.end("late"), HANG_MS);
    res.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function latenessMs(calls: ReceivedCall[]): number[] {
  return calls.map((call) => call.receivedAtMs - Date.parse(String(call.headers["edgecron-scheduled-at"])));
}

describe("e2e: a slow endpoint delays only its own runs", () => {
  let server: SchedulerProcess;
  let target: TargetServer;
  let hanging: Awaited<ReturnType<typeof startHangingTarget>>;
  let _admin: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    target = await startTarget();
    hanging = await startHangingTarget();
    server = await startScheduler();
    _admin = apiClient(server.baseUrl, ADMIN_TOKEN);
  });
  afterAll(async () => {
    await server?.stop();
    await target?.close();
    await hanging?.close();
    if (server) removeState(server.stateDir);
  });

  async function tenantApi(name: string, alertWebhookUrl?: string) {
    const fields = { name, ...(alertWebhookUrl ? { alert_webhook_url: alertWebhookUrl } : {}) };
    return (await createTenantWithKey(server.baseUrl, fields)).api;
  }

  it("keeps another tenant's every-second job on time beside a hanging target and a hanging webhook", async () => {
    const quiet = await tenantApi("e2e-quiet");
    const hostile = await tenantApi("e2e-hostile", `${hanging.url}/alert-hook`);
    const steady = await quiet<{ id: string }>("POST", "/v1/jobs", {
      name: "steady",
      schedule: { type: "cron", expr: "* * * * * *", timezone: "UTC" },
      target: { url: `${target.url}/steady` },
    });
    expect(steady.status).toBe(201);
    const steadyCalls = () => target.calls.filter((call) => call.path === "/steady");
    // Its normal lateness, before anyone hangs.
    await waitUntil(() => steadyCalls().length >= 4, { timeoutMs: 20_000, what: "4 steady calls" });
    const baseline = latenessMs(steadyCalls().slice(1));

    // Three every-second jobs whose target hangs; one job that fails for good and is paused, so
    // its dead letter, its pause alert and its on_failure call go to URLs that hang too.
    target.respond((call) => ({ status: call.path === "/fails" ? 400 : 200 }));
    for (let index = 0; index < 3; index++) {
      const job = await hostile("POST", "/v1/jobs", {
        name: `hangs-${index}`,
        schedule: { type: "cron", expr: "* * * * * *", timezone: "UTC" },
        target: { url: `${hanging.url}/target/${index}` },
        timeout: "30s",
      });
      expect(job.status).toBe(201);
    }
    const failing = await hostile("POST", "/v1/jobs", {
      name: "fails",
      schedule: { type: "cron", expr: "* * * * * *", timezone: "UTC" },
      target: { url: `${target.url}/fails` },
      pause_after_failures: 1,
      on_failure: `${hanging.url}/on-failure`,
    });
    expect(failing.status).toBe(201);
    await waitUntil(() => hanging.hits() >= 4, { timeoutMs: 20_000, what: "the hanging endpoints called" });
    const hangStartedAtMs = Date.now();
    const before = steadyCalls().length;
    await sleep(8_000);
    const during = steadyCalls().slice(before);
    const duringLateness = latenessMs(during);
    console.log(
      `[slow-endpoints e2e] steady lateness ms: before ${baseline.join(", ")}; during the hang ${duringLateness.join(", ")}; hanging calls ${hanging.hits()}`,
    );
    // Every second of the window fired, each about as late as before the hang.
    expect(during.length).toBeGreaterThanOrEqual(7);
    expect(Math.max(...duringLateness)).toBeLessThan(Math.max(1_000, 2 * Math.max(...baseline)));
    // Its runs reached the history while the hang was still on.
    const runs = await quiet<{ data: { state: string }[] }>(
      "GET",
      `/v1/jobs/${steady.body.id}/runs?limit=100`,
    );
    expect(Date.now() - hangStartedAtMs).toBeLessThan(HANG_MS);
    expect(runs.body.data.filter((run) => run.state === "SUCCEEDED").length).toBeGreaterThanOrEqual(8);
  });
});
