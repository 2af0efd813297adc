import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { createTenantWithKey } from "../helpers/api";
import { v2 } from "../helpers/qstash";
import { targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

const json = { "content-type": "application/json" };

describe("/v2/queues", () => {
  it("upserts, reads, lists and deletes a queue, per tenant", async () => {
    const t = await createTenantWithKey("qstash-queues");
    const created = await v2(
      "POST",
      "/v2/queues",
      t.key,
      json,
      JSON.stringify({ queueName: "emails", parallelism: 3 }),
    );
    expect(created).toMatchObject({
      status: 200,
      body: { name: "emails", parallelism: 3, lag: 0, paused: false },
    });
    await v2(
      "POST",
      "/v2/queues",
      t.key,
      json,
      JSON.stringify({ queueName: "emails", parallelism: 5, paused: false }),
    );
    expect((await v2("GET", "/v2/queues/emails", t.key)).body).toMatchObject({
      name: "emails",
      parallelism: 5,
    });
    expect((await v2("GET", "/v2/queues", t.key)).body.map((queue: { name: string }) => queue.name)).toEqual([
      "emails",
    ]);
    const other = await createTenantWithKey("qstash-queues");
    expect((await v2("GET", "/v2/queues/emails", other.key)).status).toBe(404);
    expect((await v2("DELETE", "/v2/queues/emails", t.key)).status).toBe(200);
    expect((await v2("GET", "/v2/queues/emails", t.key)).status).toBe(404);
  });

  it("names every bad field, storing nothing, and pauses only a queue that exists", async () => {
    const t = await createTenantWithKey("qstash-queues");
    const bad = await v2(
      "POST",
      "/v2/queues",
      t.key,
      json,
      JSON.stringify({ queueName: "no spaces", parallelism: 0, paused: "yes" }),
    );
    expect(bad.status).toBe(400);
    for (const field of ["queueName", "parallelism", "paused"]) expect(bad.body.error).toContain(field);
    expect((await v2("POST", "/v2/queues/x/pause", t.key)).status).toBe(404);
    expect((await v2("GET", "/v2/queues", t.key)).body).toEqual([]);
    const created = await v2(
      "POST",
      "/v2/queues",
      t.key,
      json,
      JSON.stringify({ queueName: "held", paused: true }),
    );
    expect(created.body).toMatchObject({ name: "held", paused: true });
    expect((await v2("POST", "/v2/queues/held/resume", t.key)).body).toMatchObject({ paused: false });
    expect((await v2("GET", "/v2/queues/held", t.key)).body).toMatchObject({ paused: false });
  });
});

describe("POST /v2/enqueue/{queue}/{destination}", () => {
  it("stores the message under the queue's flow-control key and parallelism, creating the queue", async () => {
    const t = await createTenantWithKey("qstash-queues");
    const url = `${targetUrl("/ok/enqueued")}?a=1`;
    const first = await v2("POST", `/v2/enqueue/jobs/${url}`, t.key, { "upstash-delay": "1h" }, "body");
    expect(first).toMatchObject({ status: 201, body: { messageId: expect.any(String), url } });
    const message = await v2("GET", `/v2/messages/${first.body.messageId}`, t.key);
    expect(message.body).toMatchObject({ flowControlKey: "queue:jobs", parallelism: 1, queueName: "jobs" });
    expect((await v2("GET", "/v2/queues/jobs", t.key)).body).toMatchObject({ name: "jobs", parallelism: 1 });

    await v2("POST", "/v2/queues", t.key, json, JSON.stringify({ queueName: "jobs", parallelism: 4 }));
    const batch = await v2(
      "POST",
      "/v2/batch",
      t.key,
      json,
      JSON.stringify([{ destination: url, queue: "jobs", headers: { "upstash-delay": "1h" } }]),
    );
    const batched = await v2("GET", `/v2/messages/${batch.body[0].messageId}`, t.key);
    expect(batched.body).toMatchObject({ flowControlKey: "queue:jobs", parallelism: 4 });
  });

  it("refuses a bad queue name or flow control beside the queue, and creates no queue", async () => {
    const t = await createTenantWithKey("qstash-queues");
    const url = targetUrl("/ok/enqueued");
    expect((await v2("POST", `/v2/enqueue/bad name/${url}`, t.key)).status).toBe(400);
    const both = await v2("POST", `/v2/enqueue/q1/${url}`, t.key, {
      "upstash-flow-control-key": "k",
      "upstash-flow-control-value": "parallelism=2",
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toContain("Upstash-Flow-Control-Key");
    expect((await v2("GET", "/v2/queues", t.key)).body).toEqual([]);
  });
});

describe("Upstash-Flow-Control-Key", () => {
  it("becomes the job's flow_control, which the flow gates enforce, and /v2/flowControl reads its key", async () => {
    const t = await createTenantWithKey("qstash-queues");
    const res = await v2("POST", `/v2/publish/${targetUrl("/ok/flow")}`, t.key, {
      "upstash-delay": "1h",
      "upstash-flow-control-key": "billing.k1",
      "upstash-flow-control-value": "parallelism=2, rate=10, period=1m",
    });
    expect(res.status).toBe(201);
    const job = await v2("GET", `/v1/jobs/${res.body.messageId}`, t.key);
    expect(job.body.flow_control).toEqual({ key: "billing.k1", parallelism: 2, rate: 10, period: "60s" });
    const state = await v2("GET", "/v2/flowControl/billing.k1", t.key);
    expect(state).toMatchObject({ status: 200, body: { flowControlKey: "billing.k1", waitListSize: 0 } });

    const enqueued = await v2("POST", `/v2/enqueue/mail/${targetUrl("/ok/flow")}`, t.key, {
      "upstash-delay": "1h",
    });
    const queued = await v2("GET", `/v1/jobs/${enqueued.body.messageId}`, t.key);
    expect(queued.body.flow_control).toMatchObject({ key: "queue:mail", parallelism: 1 });

    const bad = await v2("POST", `/v2/publish/${targetUrl("/ok/flow")}`, t.key, {
      "upstash-flow-control-key": "has space",
      "upstash-flow-control-value": "parallelism=1",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("Upstash-Flow-Control-Key");
  });
});
