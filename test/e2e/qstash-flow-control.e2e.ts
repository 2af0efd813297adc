// Flow control with the official @upstash/qstash client, unchanged, against the real dev server:
// `flowControl.resetRate` ends a key's rate window now, so a message waiting for the next window
// is delivered at once instead of a minute later; the key's other messages are not touched.
import { Client } from "@upstash/qstash";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  apiClient,
  type ReceivedCall,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "./harness";

describe("@upstash/qstash flow control against the dev server", () => {
  let server: SchedulerProcess;
  let target: TargetServer;
  let qstash: Client;
  const callsTo = (path: string): ReceivedCall[] =>
    target.calls.filter((call) => call.path.split("?")[0] === path);

  beforeAll(async () => {
    [server, target] = await Promise.all([startScheduler(), startTarget()]);
    const admin = apiClient(server.baseUrl, ADMIN_TOKEN);
    const tenant = await admin<{ id: string }>("POST", "/v1/tenants", { name: "qstash-flow-control" });
    const key = await admin<{ key: string }>("POST", "/v1/api-keys", { tenant_id: tenant.body.id });
    qstash = new Client({ baseUrl: server.baseUrl, token: key.body.key, devMode: false });
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), target?.close()]);
    if (server) removeState(server.stateDir);
  });

  it("delivers a message waiting for the next rate window at once after resetRate", async () => {
    const flowControl = { key: "reset-me", rate: 1, period: 120 };
    await qstash.publish({ url: `${target.url}/ok/first`, body: "1", flowControl });
    await waitUntil(() => callsTo("/ok/first").length === 1, { timeoutMs: 30_000, what: "the first call" });
    await qstash.publish({ url: `${target.url}/ok/second`, body: "2", flowControl });
    // The window's one permit is spent: the second waits (for up to 120 s).
    await waitUntil(async () => (await qstash.flowControl.get("reset-me")).waitListSize === 1, {
      timeoutMs: 30_000,
      what: "the second message to wait",
    });
    expect(callsTo("/ok/second")).toEqual([]);
    expect((await qstash.flowControl.get("reset-me")).rateCount).toBe(1);
    const resetAtMs = Date.now();
    await qstash.flowControl.resetRate("reset-me");
    await waitUntil(() => callsTo("/ok/second").length === 1, { timeoutMs: 30_000, what: "the second call" });
    expect((callsTo("/ok/second")[0]?.receivedAtMs ?? Infinity) - resetAtMs).toBeLessThan(20_000);
    // The new window counts the second grant only.
    expect((await qstash.flowControl.get("reset-me")).rateCount).toBe(1);
  });

  it("refuses the flow-control operations it does not serve, saying so", async () => {
    const paused = await qstash.flowControl.pause("reset-me").catch((error: unknown) => error);
    expect(paused).toMatchObject({ status: 404, message: expect.stringContaining("not served") });
  });
});
