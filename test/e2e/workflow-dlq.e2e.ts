// The workflow DLQ with the official @upstash/workflow SDK, unchanged, against a real
// `wrangler dev`: a run whose step fails its last retry lands in `client.dlq`, and the SDK's
// resume, restart, failure-callback retry and delete act on exactly the entries they name.
import { Client, serve } from "@upstash/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";
import { startEndpoint } from "./workflow-endpoint";

/** What the workflows' steps did, in order, per run; `broken` runs fail their second step. */
const executions = new Map<string, { step: string; value: unknown }[]>();
const broken = new Set<string>();
function executed(runId: string, step: string, value: unknown): void {
  executions.set(runId, [...(executions.get(runId) ?? []), { step, value }]);
}
const stepsOf = (runId: string) => (executions.get(runId) ?? []).map((entry) => entry.step);

/** What the SDK hands a failure function, as it recorded it. */
interface FailureSeen {
  payload: unknown;
  failStatus: number;
  failResponse: string;
  url: string;
}

const recordFailure: NonNullable<Parameters<typeof serve>[1]>["failureFunction"] = async ({
  context,
  failStatus,
  failResponse,
}) => {
  const seen: FailureSeen = { payload: context.requestPayload, failStatus, failResponse, url: context.url };
  executed(context.workflowRunId, "failure-function", seen);
};

describe("the workflow DLQ through @upstash/workflow's client", () => {
  const e2e = useScheduler({ tenant: "workflow-dlq-e2e" });
  let endpoint: { url: string; close: () => Promise<void> };
  let client: Client;

  beforeAll(async () => {
    const token = e2e.tenantKey;
    const keysRes = await fetch(`${e2e.server.baseUrl}/v2/keys`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const keys = (await keysRes.json()) as { current: string; next: string };
    const env = {
      QSTASH_URL: e2e.server.baseUrl,
      QSTASH_TOKEN: token,
      QSTASH_CURRENT_SIGNING_KEY: keys.current,
      QSTASH_NEXT_SIGNING_KEY: keys.next,
    };
    const flaky = serve<{ tag: string }>(
      async (context) => {
        const first = await context.run("first", () => {
          executed(context.workflowRunId, "first", context.requestPayload.tag);
          return `${context.requestPayload.tag}!`;
        });
        await context.run("second", () => {
          if (broken.has(context.requestPayload.tag)) throw new Error(`second broke for ${first}`);
          executed(context.workflowRunId, "second", first);
        });
      },
      { env, failureFunction: recordFailure },
    );
    // Two steps at once that both throw: the run fails once.
    const parallelBroken = serve<{ tag: string }>(
      async (context) => {
        await Promise.all(
          ["left", "right"].map((side) =>
            context.run(side, () => {
              executed(context.workflowRunId, side, null);
              throw new Error(`${side} broke`);
            }),
          ),
        );
      },
      { env, failureFunction: recordFailure },
    );
    client = new Client({ baseUrl: e2e.server.baseUrl, token });
    endpoint = await startEndpoint({ "/flaky": flaky.handler, "/parallel-broken": parallelBroken.handler });
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  /** Starts a run that fails its second step with no retry, and waits for its DLQ entry. */
  async function failedRun(tag: string): Promise<{ runId: string; dlqId: string }> {
    broken.add(tag);
    const { workflowRunId: runId } = await client.trigger({
      url: `${endpoint.url}/flaky`,
      body: { tag },
      retries: 0,
    });
    const dlqId = await waitUntil(
      async () => (await client.dlq.list({ filter: { workflowRunId: runId } })).messages[0]?.dlqId,
      { timeoutMs: 60_000, what: `the DLQ entry of ${tag}` },
    );
    return { runId, dlqId };
  }

  const runStateOf = async (runId: string) =>
    (await client.logs({ filter: { workflowRunId: runId } })).runs[0]?.workflowState;

  it("lists a failed run's entry with its run, and only the entries its filters select", async () => {
    const { runId, dlqId } = await failedRun("listed");
    const { messages } = await client.dlq.list({ filter: { workflowRunId: runId } });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      dlqId,
      workflowRunId: runId,
      workflowUrl: `${endpoint.url}/flaky`,
      failureCallback: expect.any(String),
    });
    expect(await runStateOf(runId)).toBe("RUN_FAILED");
    expect((await client.dlq.list({ filter: { workflowRunId: "wfr_none" } })).messages).toEqual([]);
    expect(
      (await client.dlq.list({ filter: { workflowUrl: `${endpoint.url}/elsewhere` } })).messages,
    ).toEqual([]);
    // A filter edgecron cannot select by is refused, naming it, never ignored.
    await expect(client.dlq.list({ filter: { failureFunctionState: "CALLBACK_FAIL" } })).rejects.toThrow(
      /failureFunctionState/,
    );
  });

  it("resumes a failed run from its failed step, keeping the steps it had done", async () => {
    const { runId, dlqId } = await failedRun("resumed");
    broken.delete("resumed");
    const resumed = await client.dlq.resume(dlqId);
    expect(resumed.workflowRuns).toEqual([{ workflowRunId: runId, workflowCreatedAt: expect.any(Number) }]);
    await waitUntil(() => stepsOf(runId).includes("second"), { timeoutMs: 60_000, what: "the resumed step" });
    // "first" ran once, before the failure: the resumed run read its result back.
    expect(executions.get(runId)?.filter(({ step }) => step !== "failure-function")).toEqual([
      { step: "first", value: "resumed" },
      { step: "second", value: "resumed!" },
    ]);
    await waitUntil(async () => (await runStateOf(runId)) === "RUN_SUCCESS", {
      timeoutMs: 30_000,
      what: "the resumed run to end",
    });
    expect((await client.dlq.list({ filter: { workflowRunId: runId } })).messages).toEqual([]);
  });

  it("restarts a failed run from its first step as a new run with the same payload", async () => {
    const { runId, dlqId } = await failedRun("restarted");
    broken.delete("restarted");
    const { workflowRuns } = await client.dlq.restart([dlqId]);
    const newRunId = workflowRuns[0]?.workflowRunId ?? "";
    expect(newRunId).not.toBe(runId);
    await waitUntil(() => stepsOf(newRunId).includes("second"), { timeoutMs: 60_000, what: "the new run" });
    expect(executions.get(newRunId)).toEqual([
      { step: "first", value: "restarted" },
      { step: "second", value: "restarted!" },
    ]);
    expect(await runStateOf(runId)).toBe("RUN_FAILED");
    expect((await client.dlq.list({ filter: { workflowRunId: runId } })).messages).toEqual([]);
  });

  it("runs the failure function again on a failure-callback retry", async () => {
    const { runId, dlqId } = await failedRun("called-back");
    await waitUntil(() => stepsOf(runId).includes("failure-function"), {
      timeoutMs: 60_000,
      what: "the failure function",
    });
    const answer = await client.dlq.retryFailureFunction({ dlqId });
    expect(answer).toMatchObject({ workflowRunId: runId });
    await waitUntil(() => stepsOf(runId).filter((step) => step === "failure-function").length === 2, {
      timeoutMs: 60_000,
      what: "the failure function again",
    });
    expect(stepsOf(runId)).toEqual(["first", "failure-function", "failure-function"]);
  });

  it("deletes only the entries its filter selects", async () => {
    const kept = await failedRun("kept");
    const gone = await failedRun("gone");
    expect(await client.dlq.delete({ filter: { workflowRunId: gone.runId } })).toMatchObject({ deleted: 1 });
    expect((await client.dlq.list({ filter: { workflowRunId: gone.runId } })).messages).toEqual([]);
    expect((await client.dlq.list({ filter: { workflowRunId: kept.runId } })).messages).toHaveLength(1);
    expect(await client.dlq.delete([kept.dlqId])).toMatchObject({ deleted: 1 });
    expect((await client.dlq.list({ filter: { workflowRunId: kept.runId } })).messages).toEqual([]);
  });

  /** The failure function's calls for a run, once its DLQ entry is there and a while has passed. */
  async function failuresSeenSettled(runId: string): Promise<FailureSeen[]> {
    await waitUntil(
      async () => (await client.dlq.list({ filter: { workflowRunId: runId } })).messages.length > 0,
      {
        timeoutMs: 60_000,
        what: "the DLQ entry",
      },
    );
    await waitUntil(() => stepsOf(runId).includes("failure-function"), {
      timeoutMs: 60_000,
      what: "the failure function",
    });
    // A second call, if one came, would follow within a queue hop or two: give it time to.
    const settledAtMs = Date.now() + 3_000;
    await waitUntil(() => Date.now() > settledAtMs, { timeoutMs: 10_000, what: "the settle time" });
    return (executions.get(runId) ?? [])
      .filter(({ step }) => step === "failure-function")
      .map(({ value }) => value as FailureSeen);
  }

  it("hands the failure function the run's payload, the failed step's status and its error, once", async () => {
    broken.add("payload");
    const { workflowRunId: runId } = await client.trigger({
      url: `${endpoint.url}/flaky`,
      body: { tag: "payload" },
      retries: 1,
    });
    const seen = await failuresSeenSettled(runId);
    expect(seen).toEqual([
      {
        payload: { tag: "payload" },
        failStatus: 500,
        failResponse: "second broke for payload!",
        url: `${endpoint.url}/flaky`,
      },
    ]);
  });

  it("calls the failure function once when two parallel steps fail", async () => {
    const { workflowRunId: runId } = await client.trigger({
      url: `${endpoint.url}/parallel-broken`,
      body: { tag: "both" },
      retries: 0,
    });
    await waitUntil(() => stepsOf(runId).includes("left") && stepsOf(runId).includes("right"), {
      timeoutMs: 60_000,
      what: "both steps",
    });
    const seen = await failuresSeenSettled(runId);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ payload: { tag: "both" }, failStatus: 500 });
    expect(seen[0]?.failResponse).toMatch(/(left|right) broke$/);
  });

  it("refuses resume, restart and a failure-function retry while the tenant is suspended, keeping the entry", async () => {
    const { runId, dlqId } = await failedRun("suspended");
    broken.delete("suspended");
    expect((await e2e.admin("POST", `/v1/tenants/${e2e.tenantId}/suspend`)).status).toBe(200);
    try {
      await expect(client.dlq.resume(dlqId)).rejects.toThrow(/suspended/);
      await expect(client.dlq.restart([dlqId])).rejects.toThrow(/suspended/);
      await expect(client.dlq.retryFailureFunction({ dlqId })).rejects.toThrow(/suspended/);
      expect((await client.dlq.list({ filter: { workflowRunId: runId } })).messages).toHaveLength(1);
      expect(await runStateOf(runId)).toBe("RUN_FAILED");
    } finally {
      expect((await e2e.admin("POST", `/v1/tenants/${e2e.tenantId}/unsuspend`)).status).toBe(200);
    }
    await client.dlq.resume(dlqId);
    await waitUntil(() => stepsOf(runId).includes("second"), { timeoutMs: 60_000, what: "the resumed step" });
  });
});
