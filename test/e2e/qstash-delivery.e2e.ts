// What a QStash user's endpoint sees, end to end: the official @upstash/qstash client, unchanged
// but for baseUrl and token, drives `wrangler dev`, and a real local endpoint verifies EVERY call
// it receives with the client's own Receiver (signature, destination URL, raw body) using the keys
// GET /v2/keys gave it: publishes, a signing-key rotation, schedule fires, callbacks and a
// failure callback.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, Receiver } from "@upstash/qstash";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the Receiver said, with the keys the endpoint held when the call arrived. */
  verified: true | string;
}

interface Keys {
  current: string;
  next: string;
}

/** An endpoint that verifies every call like a QStash user's: `/fail/...` answers 500. */
async function startVerifyingEndpoint(keysNow: () => Keys) {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", async () => {
      const path = req.url ?? "/";
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
      const keys = keysNow();
      const receiver = new Receiver({ currentSigningKey: keys.current, nextSigningKey: keys.next });
      const signature = String(req.headers["upstash-signature"] ?? "");
      const verified = await receiver.verify({ signature, body, url }).then(
        () => true as const,
        (error: unknown) => String(error),
      );
      deliveries.push({ path, headers: req.headers, body, verified });
      const failing = path.startsWith("/fail/");
      res.writeHead(failing ? 500 : 200, { "content-type": "text/plain" });
      res.end(failing ? "endpoint broke" : "done");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    deliveries,
    /** The first call to a path starting with `prefix`, waited for. */
    async received(prefix: string, match: (delivery: Delivery) => boolean = () => true): Promise<Delivery> {
      return waitUntil(
        async () => deliveries.find((delivery) => delivery.path.startsWith(prefix) && match(delivery)),
        { timeoutMs: 30_000, intervalMs: 100, what: `a call to ${prefix}` },
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("e2e: @upstash/qstash against wrangler dev, every delivery verified by its Receiver", () => {
  const e2e = useScheduler({ tenant: "e2e-qstash-delivery" });
  let endpoint: Awaited<ReturnType<typeof startVerifyingEndpoint>>;
  let client: Client;
  let keys: Keys = { current: "", next: "" };

  const readKeys = async (): Promise<Keys> => {
    const res = await fetch(`${e2e.server.baseUrl}/v2/keys`, {
      headers: { authorization: `Bearer ${e2e.tenantKey}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Keys;
  };

  beforeAll(async () => {
    endpoint = await startVerifyingEndpoint(() => keys);
    client = new Client({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey });
    keys = await readKeys();
  });

  afterAll(async () => {
    await endpoint?.close();
  });

  it("signs a publish for the exact destination (query string included) and raw body", async () => {
    const { messageId } = await client.publishJSON({
      url: `${endpoint.base}/publish/a?x=1&y=two`,
      body: { hello: "wörld" },
      headers: { "x-app": "demo" },
    });
    const delivery = await endpoint.received("/publish/a");
    expect(delivery.verified).toBe(true);
    expect(delivery.path).toBe("/publish/a?x=1&y=two");
    expect(JSON.parse(delivery.body)).toEqual({ hello: "wörld" });
    expect(delivery.headers).toMatchObject({
      "upstash-message-id": messageId,
      "upstash-retried": "0",
      "user-agent": "Upstash-QStash",
      "x-app": "demo",
    });
  });

  it("stays verifiable with the keys read during a rotation after next becomes current", async () => {
    const before = keys;
    await e2e.admin("POST", `/v1/tenants/${e2e.tenantId}/signing-secret/rotate`);
    keys = await readKeys();
    expect(keys.current).toBe(before.current);
    expect(keys.next).not.toBe(before.current);
    await client.publish({ url: `${endpoint.base}/rotation/during`, body: "during" });
    expect((await endpoint.received("/rotation/during")).verified).toBe(true);

    // The endpoint keeps the keys it read during the rotation: the new current is its next.
    await e2e.admin("POST", `/v1/tenants/${e2e.tenantId}/signing-secret/promote`);
    await client.publish({ url: `${endpoint.base}/rotation/after`, body: "after" });
    expect((await endpoint.received("/rotation/after")).verified).toBe(true);
    keys = await readKeys();
    expect(keys.current).toBe(keys.next);
  });

  it("creates, fires, upserts, pauses, resumes and deletes a schedule", async () => {
    const created = await client.schedules.create({
      destination: `${endpoint.base}/schedule/fire?from=cron`,
      // A six-field (seconds) expression, so the test sees a fire within seconds.
      cron: "CRON_TZ=Europe/Berlin */2 * * * * *",
      scheduleId: "e2e-schedule",
      body: "tick",
      retries: 1,
    });
    expect(created).toEqual({ scheduleId: "e2e-schedule" });
    const fire = await endpoint.received("/schedule/fire?from=cron");
    expect(fire.verified).toBe(true);
    expect(fire.body).toBe("tick");
    expect(fire.headers["upstash-schedule-id"]).toBe("e2e-schedule");
    expect(fire.headers["upstash-message-id"]).toMatch(/^run_/);

    const schedule = await client.schedules.get("e2e-schedule");
    expect(schedule).toMatchObject({
      scheduleId: "e2e-schedule",
      cron: "CRON_TZ=Europe/Berlin */2 * * * * *",
      destination: `${endpoint.base}/schedule/fire?from=cron`,
      method: "POST",
      retries: 1,
      isPaused: false,
    });
    expect(schedule.nextScheduleTime).toBeGreaterThan(Date.now() - 5_000);
    // The fire the endpoint saw is among the schedule's latest, by its message id.
    const fireId = String(fire.headers["upstash-message-id"]);
    const states = await waitUntil(
      async () => (await client.schedules.get("e2e-schedule")).lastScheduleStates?.[fireId],
      { timeoutMs: 15_000, what: "the fire in lastScheduleStates" },
    );
    expect(["SUCCESS", "IN_PROGRESS"]).toContain(states);

    // The same id again replaces the schedule instead of adding one.
    await client.schedules.create({
      destination: `${endpoint.base}/schedule/weekday`,
      cron: "CRON_TZ=America/New_York 0 9 * * 1-5",
      scheduleId: "e2e-schedule",
    });
    const listed = await client.schedules.list();
    expect(listed.map((item) => item.scheduleId)).toEqual(["e2e-schedule"]);
    const replaced = listed[0];
    expect(replaced?.cron).toBe("CRON_TZ=America/New_York 0 9 * * 1-5");
    const nextFire = new Date(replaced?.nextScheduleTime ?? 0);
    expect(
      nextFire.toLocaleString("en-US", { timeZone: "America/New_York", hour: "numeric", hour12: false }),
    ).toMatch(/^0?9$/);

    await client.schedules.pause({ schedule: "e2e-schedule" });
    expect((await client.schedules.get("e2e-schedule")).isPaused).toBe(true);
    await client.schedules.resume({ schedule: "e2e-schedule" });
    expect((await client.schedules.get("e2e-schedule")).isPaused).toBe(false);
    await client.schedules.delete("e2e-schedule");
    await expect(client.schedules.get("e2e-schedule")).rejects.toThrow(/not found/);
    expect(await client.schedules.list()).toEqual([]);
  });

  it("refuses a schedule without a usable cron, naming the header", async () => {
    await expect(
      client.schedules.create({
        destination: `${endpoint.base}/schedule/bad`,
        cron: "CRON_TZ=Mars/Olympus 0 9 * * *",
      }),
    ).rejects.toThrow(/Upstash-Cron/);
  });

  it("posts the answer to the callback and a dead-lettered message to the failure callback, both signed", async () => {
    const ok = await client.publish({
      url: `${endpoint.base}/callbacks/target`,
      body: "with a callback",
      callback: `${endpoint.base}/callbacks/ok`,
    });
    const callback = await endpoint.received("/callbacks/ok");
    expect(callback.verified).toBe(true);
    expect(JSON.parse(callback.body)).toMatchObject({
      status: 200,
      body: Buffer.from("done").toString("base64"),
      sourceMessageId: ok.messageId,
      url: `${endpoint.base}/callbacks/target`,
      sourceBody: Buffer.from("with a callback").toString("base64"),
      retried: 0,
    });

    const failed = await client.publish({
      url: `${endpoint.base}/fail/callbacks`,
      body: "doomed",
      retries: 0,
      failureCallback: `${endpoint.base}/callbacks/failure`,
    });
    const failure = await endpoint.received("/callbacks/failure");
    expect(failure.verified).toBe(true);
    const body = JSON.parse(failure.body) as { dlqId: string };
    expect(body).toMatchObject({
      status: 500,
      body: Buffer.from("endpoint broke").toString("base64"),
      sourceMessageId: failed.messageId,
      maxRetries: 0,
    });
    expect(body.dlqId).toMatch(/^dlq_/);
  });

  it("verified every call the endpoint received", () => {
    expect(endpoint.deliveries.length).toBeGreaterThan(5);
    expect(endpoint.deliveries.filter((delivery) => delivery.verified !== true)).toEqual([]);
  });
});
