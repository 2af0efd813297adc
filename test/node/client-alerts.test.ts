// client.alerts: list by state and kind, acknowledge and resolve (retried like a GET: idempotent).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EdgecronClient } from "../../src/client/index";
import { type StubServer, startStub } from "./stub-server";

describe("client.alerts", () => {
  let stub: StubServer;
  let client: EdgecronClient;

  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
    client = new EdgecronClient({
      baseUrl: stub.url,
      token: "ek_test",
      random: () => 0.5,
      sleep: async () => {},
    });
  });

  it("lists by state and kind", async () => {
    stub.reply(() => ({ status: 200, body: { data: [], next_cursor: null } }));
    await client.alerts.list({ state: "acknowledged", kind: "dead_lettered" });
    expect(stub.requests[0]?.path).toBe("/v1/alerts?state=acknowledged&kind=dead_lettered");
  });

  it("acknowledges and resolves, retrying a 503 (the server keeps the first time)", async () => {
    stub.reply((request, index) =>
      index === 0
        ? { status: 503, body: { title: "Service Unavailable", status: 503, code: "shard_unavailable" } }
        : {
            status: 200,
            body: { id: "alt_1", state: request.path.endsWith("/ack") ? "acknowledged" : "resolved" },
          },
    );
    expect(await client.alerts.acknowledge("alt_1")).toMatchObject({ state: "acknowledged" });
    expect(await client.alerts.resolve("alt 1")).toMatchObject({ state: "resolved" });
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/alerts/alt_1/ack",
      "POST /v1/alerts/alt_1/ack",
      "POST /v1/alerts/alt%201/resolve",
    ]);
  });
});
