// Long-running targets against a real `wrangler dev`: a local target accepts with 202 +
// Edgecron-Async, heart-beats with the typed client and the run token it received, then completes;
// another stops heart-beating, so the attempt fails at its heartbeat timeout and is retried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EdgecronClient } from "../../src/client";
import { type ReceivedCall, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

interface Run {
  id: string;
  state: string;
  attempt: number;
  result: unknown;
  accepted_at: string | null;
  last_heartbeat_at: string | null;
  events: { state: string; reason: string; attempt: number }[];
}

/** Longer than the shard's in-flight flush delay (1 s), so the API shows the run RUNNING meanwhile. */
const HEARTBEAT_GAP_MS = 1_500;

function headerOf(call: ReceivedCall, name: string): string {
  const value = call.headers[name];
  if (typeof value !== "string") throw new Error(`the call has no ${name} header`);
  return value;
}

describe("e2e: long-running targets through wrangler dev", () => {
  const e2e = useScheduler({ tenant: "e2e-long-running" });
  let receiver: EdgecronClient;
  const heartbeats: Record<string, number> = {};
  /** Background work of the target (heartbeats, completion), awaited by the tests. */
  const work: Promise<unknown>[] = [];

  async function workThenComplete(call: ReceivedCall, beats: number): Promise<void> {
    const runId = headerOf(call, "edgecron-run-id");
    const token = headerOf(call, "edgecron-run-token");
    for (let beat = 0; beat < beats; beat++) {
      await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_GAP_MS));
      await receiver.runs.heartbeat(runId, token);
      heartbeats[runId] = (heartbeats[runId] ?? 0) + 1;
    }
    await receiver.runs.complete(runId, token, {
      status: "succeeded",
      result: { beats, attempt: call.headers["edgecron-attempt"] },
    });
  }

  beforeAll(async () => {
    receiver = new EdgecronClient({ baseUrl: e2e.server.baseUrl });
    e2e.target.respond((call) => {
      const attempt = Number(call.headers["edgecron-attempt"]);
      // /steady: heart-beats three times, then completes. /stalls: the first attempt heart-beats
      // once and goes silent; the retry completes at once.
      if (call.path.startsWith("/steady")) work.push(workThenComplete(call, 3));
      else if (call.path.startsWith("/stalls") && attempt === 1) work.push(heartbeatOnce(call));
      else if (call.path.startsWith("/stalls")) work.push(workThenComplete(call, 0));
      return { status: 202, headers: { "edgecron-async": "true" } };
    });
  });

  async function heartbeatOnce(call: ReceivedCall): Promise<void> {
    await receiver.runs.heartbeat(headerOf(call, "edgecron-run-id"), headerOf(call, "edgecron-run-token"));
  }

  afterAll(async () => {
    await Promise.allSettled(work);
  });

  async function jobRuns(jobId: string): Promise<Run[]> {
    return (await e2e.api<{ data: Run[] }>("GET", `/v1/jobs/${jobId}/runs`)).body.data;
  }

  it("completes asynchronously after several heartbeats, the result in the run's history", async () => {
    const job = await e2e.api<{ id: string }>("POST", "/v1/jobs", {
      name: "steady",
      schedule: { type: "once", delay: "1s" },
      target: { url: `${e2e.target.url}/steady` },
      heartbeat_timeout: "10s",
    });
    expect(job.status).toBe(201);
    const running = await waitUntil(
      async () => {
        const [run] = await jobRuns(job.body.id);
        return run?.state === "RUNNING" && run.accepted_at !== null ? run : undefined;
      },
      { timeoutMs: 15_000, what: "the run accepted and RUNNING" },
    );
    expect(running.attempt).toBe(1);
    const done = await waitUntil(
      async () => {
        const [run] = await jobRuns(job.body.id);
        return run?.state === "SUCCEEDED" ? run : undefined;
      },
      { timeoutMs: 20_000, what: "the run SUCCEEDED" },
    );
    expect(heartbeats[done.id]).toBe(3);
    expect(done.result).toEqual({ beats: 3, attempt: "1" });
    expect(done.last_heartbeat_at).not.toBeNull();
    expect(e2e.target.calls.filter((call) => call.path.startsWith("/steady"))).toHaveLength(1);
  }, 45_000);

  it("fails an attempt that stops heart-beating at its heartbeat timeout and retries it", async () => {
    const job = await e2e.api<{ id: string }>("POST", "/v1/jobs", {
      name: "stalls",
      schedule: { type: "once", delay: "1s" },
      target: { url: `${e2e.target.url}/stalls` },
      heartbeat_timeout: "10s",
      retry: { max_attempts: 2, backoff: { initial: "1s", max: "1s", jitter: "none" } },
    });
    expect(job.status).toBe(201);
    const done = await waitUntil(
      async () => {
        const [run] = await jobRuns(job.body.id);
        return run?.state === "SUCCEEDED" ? run : undefined;
      },
      { timeoutMs: 40_000, what: "the retried run SUCCEEDED" },
    );
    expect(done.attempt).toBe(2);
    expect(done.events).toContainEqual(
      expect.objectContaining({
        state: "FAILED",
        attempt: 1,
        reason: "no heartbeat or completion within the job's heartbeat_timeout (lease expired)",
      }),
    );
    const calls = e2e.target.calls.filter((call) => call.path.startsWith("/stalls"));
    expect(calls.map((call) => call.headers["edgecron-attempt"])).toEqual(["1", "2"]);
    // The first attempt's token names a superseded fence now.
    const stale = await fetch(`${e2e.server.baseUrl}/v1/runs/${done.id}/complete`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "edgecron-run-token": headerOf(calls[0]!, "edgecron-run-token"),
      },
      body: JSON.stringify({ status: "succeeded" }),
    });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("attempt_superseded");
  }, 60_000);
});
