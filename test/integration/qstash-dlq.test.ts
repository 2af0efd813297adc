// The /v2 DLQ, events and retry delay on the real engine: a message that fails goes to the DLQ,
// is read, retried and deleted there, its life is in /v2/events, and Upstash-Retry-Delay decides
// the shard's backoff.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { createTenantWithKey } from "../helpers/api";
import { v2 } from "../helpers/qstash";
import { shardStub, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

let pathCounter = 0;
function uniquePath(kind: string): string {
  pathCounter += 1;
  return `/${kind}/qstash-dlq-${Date.now().toString(36)}-${pathCounter}`;
}

async function fireShardOf(token: string, messageId: string): Promise<void> {
  const job = await v2("GET", `/v1/jobs/${messageId}`, token);
  await runDurableObjectAlarm(shardStub(job.body.shard as number));
}

describe("the /v2 DLQ", () => {
  it("holds a message whose retries ran out; list, get, retry from it, then delete", async () => {
    const t = await createTenantWithKey("qstash-dlq");
    const path = uniquePath("flaky/1");
    const published = await v2(
      "POST",
      `/v2/publish/${targetUrl(path)}`,
      t.key,
      { "upstash-retries": "0", "upstash-label": "dlq-test" },
      "payload",
    );
    const messageId = published.body.messageId as string;
    await fireShardOf(t.key, messageId);

    const listed = await vi.waitFor(async () => {
      const res = await v2("GET", "/v2/dlq?count=10", t.key);
      expect(res.body.messages).toHaveLength(1);
      return res.body.messages[0];
    }, WAIT);
    expect(listed).toMatchObject({
      messageId,
      url: targetUrl(path),
      responseStatus: 503,
      body: "payload",
      labels: ["dlq-test"],
      dlqId: expect.any(String),
    });
    expect((await v2("GET", `/v2/dlq/${listed.dlqId}`, t.key)).body).toMatchObject({
      dlqId: listed.dlqId,
      messageId,
    });
    expect((await v2("GET", "/v2/dlq?label=other", t.key)).body.messages).toEqual([]);
    expect((await v2("GET", "/v2/dlq/dl_unknown", t.key)).status).toBe(404);

    const retried = await v2("POST", `/v2/dlq/retry?dlqIds=${listed.dlqId}`, t.key);
    expect(retried).toMatchObject({ status: 200, body: { responses: [{ messageId }] } });
    // The flaky target answers 200 on the second call: the retried message is delivered.
    await vi.waitFor(async () => {
      await fireShardOf(t.key, messageId);
      expect(await targetCalls(path)).toHaveLength(2);
    }, WAIT);
    expect((await v2("GET", "/v2/dlq", t.key)).body.messages).toEqual([]);
    const again = await v2("POST", `/v2/dlq/retry?dlqIds=${listed.dlqId}`, t.key);
    expect(again.status).toBe(404);

    const events = await vi.waitFor(async () => {
      const res = await v2("GET", `/v2/events?messageIds=${messageId}`, t.key);
      const states = (res.body.events as { state: string }[]).map((event) => event.state);
      expect(states).toContain("DELIVERED");
      return res.body.events;
    }, WAIT);
    const states = (events as { state: string }[]).map((event) => event.state);
    expect(states).toContain("FAILED");
    expect(states).toContain("CREATED");
    expect(events[0]).toMatchObject({ messageId, url: targetUrl(path), body: btoa("payload") });
    const logs = await v2("GET", `/v2/logs?messageIds=${messageId}&state=DELIVERED`, t.key);
    expect(logs.body.events.every((event: { state: string }) => event.state === "DELIVERED")).toBe(true);
  });

  it("deletes one entry and many by filter", async () => {
    const t = await createTenantWithKey("qstash-dlq");
    const ids: string[] = [];
    for (const label of ["a", "b", "b"]) {
      const res = await v2("POST", `/v2/publish/${targetUrl(uniquePath("status/404"))}`, t.key, {
        "upstash-label": label,
      });
      ids.push(res.body.messageId);
      await fireShardOf(t.key, res.body.messageId);
    }
    const entries = await vi.waitFor(async () => {
      const res = await v2("GET", "/v2/dlq", t.key);
      expect(res.body.messages).toHaveLength(3);
      return res.body.messages as { dlqId: string; labels: string[] }[];
    }, WAIT);
    const single = entries.find((entry) => entry.labels.includes("a"));
    expect((await v2("DELETE", `/v2/dlq/${single?.dlqId}`, t.key)).status).toBe(200);
    expect((await v2("DELETE", `/v2/dlq/${single?.dlqId}`, t.key)).status).toBe(404);
    expect((await v2("DELETE", "/v2/dlq?label=b", t.key)).body).toEqual({ deleted: 2 });
    expect((await v2("GET", "/v2/dlq", t.key)).body.messages).toEqual([]);
  });
});

describe("GET /v2/events", () => {
  it("shows a delayed message as CREATED, with its delivery time, before any run exists", async () => {
    const t = await createTenantWithKey("qstash-dlq");
    const res = await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, t.key, {
      "upstash-delay": "1h",
    });
    const message = await v2("GET", `/v2/messages/${res.body.messageId}`, t.key);
    const events = await v2("GET", `/v2/events?messageIds=${res.body.messageId}`, t.key);
    expect(events.body.events).toEqual([
      expect.objectContaining({
        state: "CREATED",
        messageId: res.body.messageId,
        nextDeliveryTime: message.body.notBefore,
      }),
    ]);
    expect(
      (await v2("GET", `/v2/events?messageIds=${res.body.messageId}&state=DELIVERED`, t.key)).body.events,
    ).toEqual([]);
  });
});

describe("Upstash-Retry-Delay", () => {
  it("sets the delay before the next attempt at the shard", async () => {
    const t = await createTenantWithKey("qstash-dlq");
    const path = uniquePath("status/503");
    const res = await v2("POST", `/v2/publish/${targetUrl(path)}`, t.key, {
      "upstash-retries": "2",
      "upstash-retry-delay": "3600000 * (retried + 1)",
    });
    const beforeMs = Date.now();
    await fireShardOf(t.key, res.body.messageId);
    const run = await vi.waitFor(async () => {
      const runs = await v2("GET", `/v1/runs?job_id=${res.body.messageId}`, t.key);
      expect(runs.body.data[0]?.state).toBe("RETRYING");
      return runs.body.data[0];
    }, WAIT);
    const nextMs = Date.parse(run.next_attempt_at);
    expect(nextMs).toBeGreaterThanOrEqual(beforeMs + 3_600_000);
    expect(nextMs).toBeLessThan(Date.now() + 3_600_000 + 1_000);
    const retry = (await v2("GET", `/v2/events?messageIds=${res.body.messageId}&state=RETRY`, t.key)).body
      .events;
    expect(retry[0]).toMatchObject({ state: "RETRY", nextDeliveryTime: nextMs });
  });
});
