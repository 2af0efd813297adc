// The official @upstash/qstash client, unchanged but for baseUrl and a tenant API key, against a
// real `wrangler dev` and a real local target: publish (query-string destination), delay,
// retries to the DLQ and retry from it, dedup both ways, batch, queues, cancel, events and errors.
import { Client, QstashError } from "@upstash/qstash";
import { beforeAll, describe, expect, it } from "vitest";
import { type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

describe("@upstash/qstash against wrangler dev", () => {
  const e2e = useScheduler({ tenant: "qstash-e2e" });
  let qstash: Client;
  /** Paths that answer 500 until the test flips them. */
  const failing = new Set<string>();

  const callsTo = (path: string): ReceivedCall[] =>
    e2e.target.calls.filter((call) => call.path.split("?")[0] === path);
  const waitForCalls = (path: string, count: number, timeoutMs = 30_000) =>
    waitUntil(() => callsTo(path).length >= count && callsTo(path), {
      timeoutMs,
      what: `${count} calls to ${path}`,
    });

  beforeAll(() => {
    e2e.target.respond((call) => ({ status: failing.has(call.path.split("?")[0] ?? "") ? 500 : 200 }));
    qstash = new Client({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey, devMode: false });
  });

  it("publishes to a destination with a query string and delivers the raw body and forwarded headers", async () => {
    const destination = `${e2e.target.url}/publish?x=1&y=a%20b`;
    const published = await qstash.publish({
      url: destination,
      body: "raw body",
      headers: { "content-type": "text/plain", "x-trace": "t-1" },
    });
    expect(published).toEqual({ messageId: expect.any(String), url: destination });
    const [call] = await waitForCalls("/publish", 1);
    expect(call?.path).toBe("/publish?x=1&y=a%20b");
    expect(call?.body).toBe("raw body");
    expect(call?.headers["x-trace"]).toBe("t-1");
    expect(call?.headers["content-type"]).toBe("text/plain");
    expect(call?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(call?.headers)).not.toContain(e2e.tenantKey);
  });

  it("holds a delayed message until its delay has passed", async () => {
    const sentMs = Date.now();
    await qstash.publishJSON({ url: `${e2e.target.url}/delayed`, body: { hello: "later" }, delay: 3 });
    const [call] = await waitForCalls("/delayed", 1);
    expect((call?.receivedAtMs ?? 0) - sentMs).toBeGreaterThanOrEqual(2_900);
    expect(JSON.parse(call?.body ?? "null")).toEqual({ hello: "later" });
  });

  it("retries a failing message into the DLQ, and retries it from there", async () => {
    failing.add("/flaky");
    const { messageId } = await qstash.publish({
      url: `${e2e.target.url}/flaky`,
      body: "x",
      retries: 1,
      retryDelay: "500",
    });
    await waitForCalls("/flaky", 2);
    const dlq = qstash.dlq;
    const entry = await waitUntil(
      async () => (await dlq.listMessages()).messages.find((message) => message.messageId === messageId),
      { timeoutMs: 30_000, what: "the message in the DLQ" },
    );
    expect(entry).toMatchObject({
      messageId,
      url: `${e2e.target.url}/flaky`,
      responseStatus: 500,
      maxRetries: 1,
    });
    failing.delete("/flaky");
    const retried = await dlq.retry(entry.dlqId);
    expect(retried.responses).toEqual([{ messageId }]);
    await waitForCalls("/flaky", 3);
    await waitUntil(
      async () => (await dlq.listMessages()).messages.every((message) => message.messageId !== messageId),
      {
        what: "the DLQ to be empty of it",
      },
    );
    const logs = await waitUntil(
      async () => {
        const result = await qstash.logs({ messageIds: [messageId] });
        return result.logs.some((log) => log.state === "DELIVERED") && result.logs;
      },
      { timeoutMs: 30_000, what: "a DELIVERED event" },
    );
    expect(logs.map((log) => log.state)).toEqual(
      expect.arrayContaining(["CREATED", "ERROR", "FAILED", "DELIVERED"]),
    );
  });

  it("deduplicates by id and by content", async () => {
    const url = `${e2e.target.url}/dedup`;
    const first = await qstash.publish({ url, body: "a", deduplicationId: "same-id", delay: 3600 });
    const second = await qstash.publish({ url, body: "b", deduplicationId: "same-id", delay: 3600 });
    expect(second).toEqual({ messageId: first.messageId, url, deduplicated: true });
    const one = await qstash.publish({ url, body: "c", contentBasedDeduplication: true, delay: 3600 });
    const two = await qstash.publish({ url, body: "c", contentBasedDeduplication: true, delay: 3600 });
    expect(two.messageId).toBe(one.messageId);
    expect(two.deduplicated).toBe(true);
  });

  it("publishes a batch, one answer per message", async () => {
    const results = await qstash.batchJSON([
      { url: `${e2e.target.url}/batch-a`, body: { n: 1 } },
      { url: `${e2e.target.url}/batch-b?q=2`, body: { n: 2 }, method: "PUT" },
    ]);
    expect(results).toEqual([
      { messageId: expect.any(String), url: `${e2e.target.url}/batch-a` },
      { messageId: expect.any(String), url: `${e2e.target.url}/batch-b?q=2` },
    ]);
    const [b] = await waitForCalls("/batch-b", 1);
    expect(b).toMatchObject({ method: "PUT", path: "/batch-b?q=2" });
    expect(JSON.parse(b?.body ?? "null")).toEqual({ n: 2 });
  });

  it("reads and cancels a pending message", async () => {
    const { messageId } = await qstash.publish({
      url: `${e2e.target.url}/cancelled`,
      body: "never",
      delay: 3600,
      label: "later",
    });
    const message = await qstash.messages.get(messageId);
    expect(message).toMatchObject({
      messageId,
      url: `${e2e.target.url}/cancelled`,
      method: "POST",
      body: "never",
      labels: ["later"],
    });
    expect(message.notBefore).toBeGreaterThan(Date.now() + 3_500_000);
    expect(await qstash.messages.cancel(messageId)).toEqual({ cancelled: 1 });
    await expect(qstash.messages.get(messageId)).rejects.toMatchObject({ status: 404 });
    const many = await Promise.all(
      [1, 2].map(() => qstash.publish({ url: `${e2e.target.url}/cancelled`, delay: 3600 })),
    );
    expect(await qstash.messages.cancel(many.map((m) => m.messageId))).toEqual({ cancelled: 2 });
  });

  it("enqueues to a queue the client created, and delivers", async () => {
    const queue = qstash.queue({ queueName: "e2e-queue" });
    await queue.upsert({ parallelism: 2 });
    expect(await queue.get()).toMatchObject({ name: "e2e-queue", parallelism: 2, paused: false });
    const { messageId } = await queue.enqueueJSON({
      url: `${e2e.target.url}/queued?n=1`,
      body: { queued: true },
    });
    const [call] = await waitForCalls("/queued", 1);
    expect(call?.path).toBe("/queued?n=1");
    expect(await qstash.messages.get(messageId)).toMatchObject({
      flowControlKey: "queue:e2e-queue",
      parallelism: 2,
    });
    expect((await qstash.queue().list()).map((listed) => listed.name)).toEqual(["e2e-queue"]);
    await queue.delete();
  });

  it("never delivers a cancelled message", async () => {
    const { messageId } = await qstash.publish({
      url: `${e2e.target.url}/cancel-short`,
      body: "no",
      delay: 2,
    });
    expect(await qstash.messages.cancel(messageId)).toEqual({ cancelled: 1 });
    // A later message to another path is the clock: once it arrived, the cancelled one was due too.
    await qstash.publish({ url: `${e2e.target.url}/cancel-witness`, body: "yes", delay: 3 });
    await waitForCalls("/cancel-witness", 1);
    expect(callsTo("/cancel-short")).toEqual([]);
  });

  it("answers the global parallelism as the tenant's call limit", async () => {
    expect(await qstash.flowControl.getGlobalParallelism()).toEqual({
      parallelismMax: 0,
      parallelismCount: 0,
    });
    const { admin } = e2e;
    expect((await admin("PUT", `/v1/tenants/${e2e.tenantId}/limits`, { concurrent_calls: 7 })).status).toBe(
      200,
    );
    expect(await qstash.flowControl.getGlobalParallelism()).toEqual({
      parallelismMax: 7,
      parallelismCount: 0,
    });
    expect((await admin("PUT", `/v1/tenants/${e2e.tenantId}/limits`, {})).status).toBe(200);
  });

  it("answers errors the client throws with their status", async () => {
    const stranger = new Client({
      baseUrl: e2e.server.baseUrl,
      token: `ek_${"0".repeat(64)}`,
      devMode: false,
    });
    const unauthorized = await stranger
      .publish({ url: `${e2e.target.url}/x` })
      .catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(QstashError);
    expect(unauthorized).toMatchObject({ status: 401 });
    const bad = await qstash
      .publish({ url: `${e2e.target.url}/x`, retryDelay: "eval(1)" })
      .catch((error: unknown) => error);
    expect(bad).toMatchObject({ status: 400, message: expect.stringContaining("Upstash-Retry-Delay") });
    const unknown = await qstash.messages.get("job_unknown").catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 404 });
    const runNow = await fetch(`${e2e.server.baseUrl}/v2/messages/job_x/retry`, {
      method: "POST",
      headers: { authorization: `Bearer ${e2e.tenantKey}` },
    });
    expect(runNow.status).toBe(404);
    expect(await runNow.text()).toContain("message job_x not found");
    const group = await qstash.urlGroups.get("group").catch((error: unknown) => error);
    expect(group).toMatchObject({
      status: 404,
      message: expect.stringContaining("url group group not found"),
    });
  });
});
