// The official @upstash/workflow SDK, unchanged, served from a plain Node endpoint with the SDK's
// own `serve`, pointed at a real `wrangler dev` by its env (QSTASH_URL, token and signing keys):
// every step runs once, in order, with the results passed along; sleeps wait; parallel steps.
import { Client as QstashClient } from "@upstash/qstash";
import { Client, serve } from "@upstash/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";
import { startEndpoint } from "./workflow-endpoint";

const thirdPartyCalls: { headers: Headers; body: string }[] = [];

/** What the workflows' steps did, in the order they did it, per run. */
const executions = new Map<string, { step: string; value: unknown; atMs: number }[]>();
function executed(runId: string, step: string, value: unknown): void {
  executions.set(runId, [...(executions.get(runId) ?? []), { step, value, atMs: Date.now() }]);
}
const stepsOf = (runId: string) => (executions.get(runId) ?? []).map((entry) => entry.step);

describe("@upstash/workflow against wrangler dev", () => {
  const e2e = useScheduler({ tenant: "workflow-e2e" });
  let endpoint: { url: string; close: () => Promise<void> };
  let client: Client;

  beforeAll(async () => {
    const keysRes = await fetch(`${e2e.server.baseUrl}/v2/keys`, {
      headers: { authorization: `Bearer ${e2e.tenantKey}` },
    });
    const keys = (await keysRes.json()) as { current: string; next: string };
    const env = {
      QSTASH_URL: e2e.server.baseUrl,
      QSTASH_TOKEN: e2e.tenantKey,
      QSTASH_CURRENT_SIGNING_KEY: keys.current,
      QSTASH_NEXT_SIGNING_KEY: keys.next,
    };
    const steps = serve<{ n: number }>(
      async (context) => {
        const doubled = await context.run("double", () => {
          executed(context.workflowRunId, "double", context.requestPayload.n * 2);
          return context.requestPayload.n * 2;
        });
        const plusOne = await context.run("plus-one", () => {
          executed(context.workflowRunId, "plus-one", doubled + 1);
          return doubled + 1;
        });
        await context.run("report", () => {
          executed(context.workflowRunId, "report", { doubled, plusOne });
        });
      },
      { env },
    );
    const sleeping = serve(
      async (context) => {
        await context.run("before", () => executed(context.workflowRunId, "before", null));
        await context.sleep("nap", 3);
        await context.run("after", () => executed(context.workflowRunId, "after", null));
      },
      { env },
    );
    const parallel = serve(
      async (context) => {
        const [a, b] = await Promise.all([
          context.run("left", () => {
            executed(context.workflowRunId, "left", "L");
            return "L";
          }),
          context.run("right", () => {
            executed(context.workflowRunId, "right", "R");
            return "R";
          }),
        ]);
        await context.run("joined", () => executed(context.workflowRunId, "joined", `${a}${b}`));
      },
      { env },
    );
    const calling = serve(
      async (context) => {
        const answer = await context.call<{ echoed: string }>("ask", {
          url: `${endpoint.url}/third-party`,
          method: "POST",
          body: JSON.stringify({ question: "ping" }),
          headers: { "x-asked-by": "workflow" },
        });
        await context.run("use-answer", () =>
          executed(context.workflowRunId, "use-answer", { status: answer.status, body: answer.body }),
        );
      },
      { env },
    );
    const failing = serve(
      async (context) => {
        await context.run("doomed", () => {
          executed(context.workflowRunId, "doomed", null);
          throw new Error("the step broke");
        });
      },
      {
        env,
        failureFunction: async ({ context, failStatus, failResponse }) => {
          executed(context.workflowRunId, "failure-function", {
            payload: context.requestPayload,
            failStatus,
            failResponse,
          });
        },
      },
    );
    const cancellable = serve(
      async (context) => {
        await context.run("first", () => executed(context.workflowRunId, "first", null));
        await context.sleep("wait", 3);
        await context.run("never", () => executed(context.workflowRunId, "never", null));
      },
      { env },
    );
    const waiting = serve<{ eventId: string; timeout: `${bigint}s` }>(
      async (context) => {
        await context.run("before", () => executed(context.workflowRunId, "before", null));
        const { eventData, timeout } = await context.waitForEvent("event", context.requestPayload.eventId, {
          timeout: context.requestPayload.timeout,
        });
        await context.run("after", () => executed(context.workflowRunId, "after", { eventData, timeout }));
      },
      { env },
    );
    client = new Client({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey });
    endpoint = await startEndpoint({
      "/steps": steps.handler,
      "/sleep": sleeping.handler,
      "/parallel": parallel.handler,
      "/call": calling.handler,
      "/failing": failing.handler,
      "/cancellable": cancellable.handler,
      "/waiting": waiting.handler,
      "/third-party": async (request) => {
        thirdPartyCalls.push({ headers: request.headers, body: await request.text() });
        return Response.json({ echoed: "pong" }, { status: 201 });
      },
    });
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  const trigger = async (path: string, body: unknown): Promise<string> =>
    (await client.trigger({ url: `${endpoint.url}${path}`, body })).workflowRunId;

  const runState = async (runId: string) =>
    (
      await fetch(`${e2e.server.baseUrl}/v2/workflows/runs/${runId}`, {
        headers: { authorization: `Bearer ${e2e.tenantKey}` },
      })
    ).status;

  it("runs every step once, in order, passing each result to the next, and ends the run", async () => {
    // Started as a plain QStash message to the endpoint: the SDK then starts the run itself,
    // forwarding the headers of edgecron's call (host, content-length, Upstash-Signature...).
    const qstash = new QstashClient({ baseUrl: e2e.server.baseUrl, token: e2e.tenantKey });
    await qstash.publishJSON({ url: `${endpoint.url}/steps`, body: { n: 20 } });
    const runId = await waitUntil(() => [...executions.keys()].find((id) => stepsOf(id)[0] === "double"), {
      timeoutMs: 60_000,
      what: "the first step",
    });
    await waitUntil(() => stepsOf(runId).length >= 3, { timeoutMs: 60_000, what: "three steps" });
    // The run is ended by the SDK's last call: its steps are no longer served.
    await waitUntil(async () => (await runState(runId)) === 404, {
      timeoutMs: 30_000,
      what: "the run to end",
    });
    expect(executions.get(runId)?.map(({ step, value }) => [step, value])).toEqual([
      ["double", 40],
      ["plus-one", 41],
      ["report", { doubled: 40, plusOne: 41 }],
    ]);
    const { runs } = await client.logs({ filter: { workflowRunId: runId } });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      workflowRunId: runId,
      workflowState: "RUN_SUCCESS",
      workflowUrl: `${endpoint.url}/steps`,
    });
    expect(runs[0]?.steps.map((group) => group.steps[0]?.stepName)).toEqual([
      "init",
      "double",
      "plus-one",
      "report",
    ]);
    expect((runs[0]?.steps[2]?.steps[0] as { out?: unknown } | undefined)?.out).toBe("41");
  });

  it("waits out a sleep before the next step", async () => {
    const runId = await trigger("/sleep", {});
    await waitUntil(() => stepsOf(runId).length >= 2, { timeoutMs: 60_000, what: "both steps" });
    const [before, after] = executions.get(runId) ?? [];
    expect(stepsOf(runId)).toEqual(["before", "after"]);
    expect((after?.atMs ?? 0) - (before?.atMs ?? 0)).toBeGreaterThanOrEqual(2_900);
  });

  it("runs parallel steps once each and continues with both results", async () => {
    const runId = await trigger("/parallel", {});
    await waitUntil(() => stepsOf(runId).includes("joined"), { timeoutMs: 60_000, what: "the joined step" });
    expect([...stepsOf(runId)].sort()).toEqual(["joined", "left", "right"]);
    expect(stepsOf(runId).at(-1)).toBe("joined");
    expect(executions.get(runId)?.at(-1)?.value).toBe("LR");
  });

  it("calls a third party with context.call and hands its answer to the next step", async () => {
    const runId = await trigger("/call", {});
    await waitUntil(() => stepsOf(runId).includes("use-answer"), {
      timeoutMs: 60_000,
      what: "the step after the call",
    });
    expect(thirdPartyCalls).toHaveLength(1);
    expect(JSON.parse(thirdPartyCalls[0]?.body ?? "null")).toEqual({ question: "ping" });
    expect(thirdPartyCalls[0]?.headers.get("x-asked-by")).toBe("workflow");
    expect(executions.get(runId)).toEqual([
      { step: "use-answer", value: { status: 201, body: { echoed: "pong" } }, atMs: expect.any(Number) },
    ]);
  });

  it("runs the failure function once a step has failed its last retry, with the run's payload", async () => {
    const { workflowRunId: runId } = await client.trigger({
      url: `${endpoint.url}/failing`,
      body: { order: 7 },
      retries: 1,
    });
    await waitUntil(() => stepsOf(runId).includes("failure-function"), {
      timeoutMs: 60_000,
      what: "the failure function",
    });
    // The step ran twice (one retry), then the failure function once, with what QStash hands it:
    // the trigger's body as `requestPayload` (the failure callback's `sourceBody`), the step's
    // status, and the error's message read from the answer's body.
    expect(stepsOf(runId)).toEqual(["doomed", "doomed", "failure-function"]);
    expect(executions.get(runId)?.at(-1)?.value).toEqual({
      payload: { order: 7 },
      failStatus: 500,
      failResponse: "the step broke",
    });
    const { runs } = await client.logs({ filter: { workflowRunId: runId } });
    expect(runs[0]?.workflowState).toBe("RUN_FAILED");
  });

  it("stops a cancelled run: the step after its sleep never runs", async () => {
    const runId = await trigger("/cancellable", {});
    await waitUntil(() => stepsOf(runId).includes("first"), { timeoutMs: 60_000, what: "the first step" });
    // The sleep's message is stored once the SDK has published it: cancel it then.
    await waitUntil(
      async () => (await client.logs({ filter: { workflowRunId: runId } })).runs[0]?.steps.length === 3,
      {
        timeoutMs: 30_000,
        what: "the sleep step to be stored",
      },
    );
    const cancelledAtMs = Date.now();
    expect(await client.cancel({ ids: runId })).toEqual({ cancelled: 1 });
    const { runs } = await client.logs({ filter: { workflowRunId: runId } });
    expect(runs[0]?.workflowState).toBe("RUN_CANCELED");
    // Past the sleep's end (3 s) with margin, the step after it has still not run.
    await waitUntil(() => Date.now() - cancelledAtMs > 6_000, {
      timeoutMs: 10_000,
      what: "the sleep to be over",
    });
    expect(stepsOf(runId)).toEqual(["first"]);
  });

  it("wakes a run waiting for an event when it is notified, with the event's data", async () => {
    const eventId = `order-${Date.now()}`;
    const runId = await trigger("/waiting", { eventId, timeout: "60s" });
    await waitUntil(async () => (await client.getWaiters({ eventId })).length === 1, {
      timeoutMs: 60_000,
      what: "the run to wait",
    });
    expect(stepsOf(runId)).toEqual(["before"]);
    const woken = await client.notify({ eventId, eventData: { paid: true } });
    expect(woken).toHaveLength(1);
    await waitUntil(() => stepsOf(runId).includes("after"), {
      timeoutMs: 30_000,
      what: "the step after the wait",
    });
    expect(executions.get(runId)?.at(-1)?.value).toEqual({ eventData: { paid: true }, timeout: false });
    expect(await client.getWaiters({ eventId })).toEqual([]);
  });

  it("wakes a waiting run at its timeout when no event comes", async () => {
    const eventId = `never-${Date.now()}`;
    const runId = await trigger("/waiting", { eventId, timeout: "2s" });
    await waitUntil(() => stepsOf(runId).includes("after"), {
      timeoutMs: 30_000,
      what: "the step after the timeout",
    });
    const [before, after] = executions.get(runId) ?? [];
    expect(after?.value).toEqual({ timeout: true });
    expect((after?.atMs ?? 0) - (before?.atMs ?? 0)).toBeGreaterThanOrEqual(1_900);
  });
});
