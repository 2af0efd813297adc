// The typed client's side of long-running targets: complete and heartbeat carry the run token
// (no API key needed), heartbeats are retried, completions are not.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EdgecronClient, EdgecronProblemError } from "../../src/client/index";
import { type StubServer, startStub } from "./stub-server";

const RUN_ID = "run_01JDXS3M_1764403200000";
const TOKEN = "ert1.3.1.42.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

describe("runs.complete and runs.heartbeat", () => {
  let stub: StubServer;
  let receiver: EdgecronClient;

  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
    // A receiver knows only the base URL and the token the call carried.
    receiver = new EdgecronClient({ baseUrl: stub.url, sleep: async () => {} });
  });

  it("posts the completion with Edgecron-Run-Token and no Authorization header", async () => {
    stub.reply(() => ({ status: 200, body: { run_id: RUN_ID, attempt: 1, state: "SUCCEEDED" } }));
    const result = await receiver.runs.complete(RUN_ID, TOKEN, { status: "succeeded", result: { rows: 3 } });
    expect(result).toEqual({ run_id: RUN_ID, attempt: 1, state: "SUCCEEDED" });
    const [request] = stub.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe(`/v1/runs/${RUN_ID}/complete`);
    expect(request?.headers["edgecron-run-token"]).toBe(TOKEN);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.json()).toEqual({ status: "succeeded", result: { rows: 3 } });
  });

  it("retries a heartbeat after a 503, but never a completion", async () => {
    stub.reply((_request, index) =>
      index === 0
        ? { status: 503, body: { status: 503, title: "x", code: "shard_unavailable" } }
        : { status: 200, body: { run_id: RUN_ID, attempt: 1, lease_expires_at: "2026-12-01T00:05:00.000Z" } },
    );
    const beat = await receiver.runs.heartbeat(RUN_ID, TOKEN);
    expect(beat.lease_expires_at).toBe("2026-12-01T00:05:00.000Z");
    expect(stub.requests.map((r) => r.path)).toEqual([
      `/v1/runs/${RUN_ID}/heartbeat`,
      `/v1/runs/${RUN_ID}/heartbeat`,
    ]);

    stub.requests.length = 0;
    stub.reply(() => ({ status: 503, body: { status: 503, title: "x", code: "shard_unavailable" } }));
    await expect(
      receiver.runs.complete(RUN_ID, TOKEN, { status: "failed", error: "x" }),
    ).rejects.toBeInstanceOf(EdgecronProblemError);
    expect(stub.requests).toHaveLength(1);
  });

  it("surfaces a superseded attempt as its stable code", async () => {
    stub.reply(() => ({
      status: 409,
      body: { status: 409, title: "Conflict", code: "attempt_superseded", detail: "no longer running" },
    }));
    const error = await receiver.runs.heartbeat(RUN_ID, TOKEN).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EdgecronProblemError);
    expect((error as EdgecronProblemError).code).toBe("attempt_superseded");
  });
});
