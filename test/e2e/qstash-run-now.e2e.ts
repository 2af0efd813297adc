// POST /v2/messages/{id}/retry against the real dev server: a waiting message runs now, whether
// it waits for its delay or for a retry's backoff, as the same run (its idempotency key kept), so
// it is delivered once and nothing of it is left waiting. The client (2.12.0) has no call for it:
// a plain fetch with the same token, as QStash's REST docs show it.
import { Client } from "@upstash/qstash";
import { beforeAll, describe, expect, it } from "vitest";
import { type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

describe("running a waiting message now", () => {
  const e2e = useScheduler({ tenant: "qstash-run-now" });
  let qstash: Client;
  const callsTo = (path: string): ReceivedCall[] =>
    e2e.target.calls.filter((call) => call.path.split("?")[0] === path);
  const runNow = (messageId: string) =>
    e2e.api<{ messageId?: string; error?: string }>("POST", `/v2/messages/${messageId}/retry`);

  beforeAll(() => {
    e2e.target.respond((call) => ({ status: call.path.startsWith("/fail/") ? 500 : 200 }));
    qstash = new Client({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey, devMode: false });
  });

  it("delivers a delayed message now, once, with nothing left waiting", async () => {
    const { messageId } = await qstash.publish({
      url: `${e2e.target.url}/ok/delayed`,
      body: "soon",
      delay: 600,
    });
    const askedAtMs = Date.now();
    expect(await runNow(messageId)).toMatchObject({ status: 200, body: { messageId } });
    await waitUntil(() => callsTo("/ok/delayed").length === 1, { timeoutMs: 30_000, what: "the delivery" });
    expect((callsTo("/ok/delayed")[0]?.receivedAtMs ?? Infinity) - askedAtMs).toBeLessThan(20_000);
    // The one run is the message's run at its instant (its key), and the job is done: the
    // instant 10 minutes on has nothing left to fire.
    const job = await waitUntil(
      async () => {
        const res = await e2e.api<{ status: string }>("GET", `/v1/jobs/${messageId}`);
        return res.body.status === "COMPLETED" ? res.body : undefined;
      },
      { timeoutMs: 30_000, what: "the message's job to complete" },
    );
    expect(job.status).toBe("COMPLETED");
    const states = await waitUntil(
      async () => {
        const runs = await e2e.api<{ data: { state: string }[] }>("GET", `/v1/runs?job_id=${messageId}`);
        const seen = runs.body.data.map((run) => run.state);
        return seen.includes("SUCCEEDED") ? seen : undefined;
      },
      { timeoutMs: 30_000, what: "the run's history" },
    );
    expect(states).toEqual(["SUCCEEDED"]);
    expect(callsTo("/ok/delayed")[0]?.headers["upstash-message-id"]).toBe(messageId);
    // Delivered: nothing waits any more.
    expect(await runNow(messageId)).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining("no waiting delivery") },
    });
  });

  it("runs a retry waiting out its backoff now, as the next attempt of the same run", async () => {
    const { messageId } = await qstash.publish({
      url: `${e2e.target.url}/fail/backoff`,
      body: "again",
      retries: 2,
      retryDelay: "100000",
    });
    await waitUntil(() => callsTo("/fail/backoff").length === 1, {
      timeoutMs: 30_000,
      what: "the first attempt",
    });
    await waitUntil(
      async () => {
        const res = await e2e.api<{ data: { state: string }[] }>("GET", `/v1/runs?job_id=${messageId}`);
        return res.body.data[0]?.state === "RETRYING" ? true : undefined;
      },
      { timeoutMs: 30_000, what: "the run to wait for its retry" },
    );
    const askedAtMs = Date.now();
    expect(await runNow(messageId)).toMatchObject({ status: 200 });
    await waitUntil(() => callsTo("/fail/backoff").length === 2, {
      timeoutMs: 30_000,
      what: "the second attempt",
    });
    // Well before the 100 s backoff, and as attempt 2 of the same message.
    expect((callsTo("/fail/backoff")[1]?.receivedAtMs ?? Infinity) - askedAtMs).toBeLessThan(20_000);
    expect(callsTo("/fail/backoff")[1]?.headers).toMatchObject({
      "upstash-message-id": messageId,
      "upstash-retried": "1",
    });
    expect(callsTo("/fail/backoff")[1]?.headers["idempotency-key"]).toBe(
      callsTo("/fail/backoff")[0]?.headers["idempotency-key"],
    );
    const runs = await e2e.api<{ data: unknown[] }>("GET", `/v1/runs?job_id=${messageId}`);
    expect(runs.body.data).toHaveLength(1);
  });

  it("answers 404 for an unknown or cancelled message", async () => {
    expect((await runNow("job_unknown")).status).toBe(404);
    const { messageId } = await qstash.publish({
      url: `${e2e.target.url}/ok/cancelled`,
      body: "x",
      delay: 600,
    });
    await qstash.messages.cancel(messageId);
    expect((await runNow(messageId)).status).toBe(404);
  });
});
