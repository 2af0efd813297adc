// Flow control with the official @upstash/qstash client, unchanged, against the real dev server:
// `flowControl.resetRate` ends a key's rate window now, so a message waiting for the next window
// is delivered at once instead of minutes later; pausing a key (or a queue, which is one) holds
// its messages at their shards until it is resumed, and then delivers every one.
import { Client } from "@upstash/qstash";
import { beforeAll, describe, expect, it } from "vitest";
import { type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

describe("@upstash/qstash flow control against the dev server", () => {
  const e2e = useScheduler({ tenant: "qstash-flow-control" });
  let qstash: Client;
  const callsTo = (path: string): ReceivedCall[] =>
    e2e.target.calls.filter((call) => call.path.split("?")[0] === path);

  beforeAll(() => {
    qstash = new Client({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey, devMode: false });
  });

  it("delivers a message waiting for the next rate window at once after resetRate", async () => {
    const flowControl = { key: "reset-me", rate: 1, period: 120 };
    await qstash.publish({ url: `${e2e.target.url}/ok/first`, body: "1", flowControl });
    await waitUntil(() => callsTo("/ok/first").length === 1, { timeoutMs: 30_000, what: "the first call" });
    await qstash.publish({ url: `${e2e.target.url}/ok/second`, body: "2", flowControl });
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

  it("holds a paused key's messages until it is resumed, then delivers them", async () => {
    await qstash.flowControl.pause("held");
    expect((await qstash.flowControl.get("held")).isPaused).toBe(true);
    await qstash.publish({
      url: `${e2e.target.url}/ok/held`,
      body: "h",
      flowControl: { key: "held", parallelism: 5 },
    });
    await waitUntil(async () => (await qstash.flowControl.get("held")).waitListSize === 1, {
      timeoutMs: 30_000,
      what: "the message to wait at the paused key",
    });
    expect(callsTo("/ok/held")).toEqual([]);
    await qstash.flowControl.resume("held");
    expect((await qstash.flowControl.get("held")).isPaused).toBe(false);
    await waitUntil(() => callsTo("/ok/held").length === 1, { timeoutMs: 30_000, what: "the held call" });
  });

  it("pauses and resumes a queue: its messages wait, none is lost", async () => {
    const queue = qstash.queue({ queueName: "pausable" });
    await queue.upsert({ parallelism: 2 });
    await queue.pause();
    expect((await queue.get()).paused).toBe(true);
    await queue.enqueue({ url: `${e2e.target.url}/ok/queued-1`, body: "1" });
    await queue.enqueue({ url: `${e2e.target.url}/ok/queued-2`, body: "2" });
    await waitUntil(async () => (await qstash.flowControl.get("queue:pausable")).waitListSize === 2, {
      timeoutMs: 30_000,
      what: "both messages to wait in the paused queue",
    });
    expect([...callsTo("/ok/queued-1"), ...callsTo("/ok/queued-2")]).toEqual([]);
    await queue.resume();
    expect((await queue.get()).paused).toBe(false);
    await waitUntil(() => callsTo("/ok/queued-1").length === 1 && callsTo("/ok/queued-2").length === 1, {
      timeoutMs: 30_000,
      what: "both queued calls",
    });
  });

  it("refuses the flow-control operations it does not serve, saying so", async () => {
    const pinned = await qstash.flowControl.pin("held", { parallelism: 1 }).catch((error: unknown) => error);
    expect(pinned).toMatchObject({ status: 404, message: expect.stringContaining("not served") });
  });
});
