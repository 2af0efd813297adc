// Long-running jobs against the real target server: the target answers 202 + Edgecron-Async (or
// the job says completion: callback), the run stays RUNNING, and the target reports back with the
// per-run token it received. Alarms are fired explicitly; leases are moved in the shard's storage.

import { runDurableObjectAlarm, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { app } from "../../src/api/app";
import type { JobCreate } from "../../src/core/jobs/job-spec";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, BASE } from "../helpers/api";
import {
  historyOf,
  makeJobDue,
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  statesOf,
  stubFor,
  TENANT_ID,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

// Async runs hold a lease (an armed alarm) until they report back: drain after each test.
disarmShardsAfterEach();

interface ShardRun {
  run_id: string;
  state: string;
  attempt: number;
  fence: number;
  due_at_ms: number | null;
  accepted_at_ms: number | null;
  events_json: string;
}

const NO_WAIT_RETRY = {
  max_attempts: 2,
  backoff: { initial: "0s", max: "0s", multiplier: 1, jitter: "none" },
};

function longRunningJob(label: string, path: "/async" | "/ok", extra: Partial<JobCreate> = {}) {
  const jobId = uniqueJobId(label);
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(Date.now() - 200).toISOString() },
    target: { url: targetUrl(`${path}/${jobId}`) },
    retry: NO_WAIT_RETRY as JobCreate["retry"],
    ...extra,
  });
  return { jobId, jobSpec, path: `${path}/${jobId}` };
}

async function shardRun(jobId: string): Promise<ShardRun> {
  const [run] = await shardRows<ShardRun>(
    jobId,
    "SELECT * FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
    jobId,
  );
  if (!run) throw new Error(`no run of ${jobId} on its shard`);
  return run;
}

/** Waits for the target's `attempt`-th call and for the shard to record that it was accepted. */
async function acceptedAttempt(jobId: string, path: string, attempt = 1) {
  return vi.waitFor(async () => {
    const calls = await targetCalls(path);
    expect(calls).toHaveLength(attempt);
    const run = await shardRun(jobId);
    expect(run).toMatchObject({ state: "RUNNING", attempt });
    expect(run.accepted_at_ms).not.toBeNull();
    const call = calls[attempt - 1]!;
    return {
      runId: call.headers["edgecron-run-id"] as string,
      token: call.headers["edgecron-run-token"] as string,
      run,
    };
  }, WAIT);
}

type DocumentedResponses = Record<string, { content?: Record<string, { schema: z.ZodType }> }>;

/** The responses the OpenAPI definition of POST /v1/runs/{id}/<kind> documents. */
function documentedResponses(kind: "complete" | "heartbeat"): DocumentedResponses {
  const definition = app.openAPIRegistry.definitions.find(
    (candidate) => candidate.type === "route" && candidate.route.path === `/v1/runs/{id}/${kind}`,
  );
  if (definition?.type !== "route") throw new Error(`no definition of ${kind}`);
  return definition.route.responses as DocumentedResponses;
}

/** Reports back as a target would; every answer must be one its route definition documents. */
async function report(kind: "complete" | "heartbeat", runId: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers["edgecron-run-token"] = token;
  const res = await SELF.fetch(`${BASE}/v1/runs/${runId}/${kind}`, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = {
    status: res.status,
    type: res.headers.get("content-type"),
    body: (await res.json()) as Record<string, unknown>,
  };
  const documented = documentedResponses(kind)[String(answer.status)];
  expect(documented, `${kind} documents ${answer.status}`).toBeDefined();
  const [mediaType, content] = Object.entries(documented?.content ?? {})[0] ?? [];
  expect(answer.type).toContain(mediaType);
  expect(content?.schema.safeParse(answer.body).error?.issues ?? []).toEqual([]);
  return answer;
}

async function setLease(jobId: string, runId: string, dueAtMs: number) {
  await inShardTables(stubFor(jobId), (sql, _storage) => {
    sql.exec("UPDATE runs SET due_at_ms = ? WHERE run_id = ?", dueAtMs, runId);
  });
}

async function waitForHistoryState(jobId: string, state: string) {
  return vi.waitFor(async () => {
    const [run] = await historyOf(jobId);
    expect(run?.state).toBe(state);
    return run!;
  }, WAIT);
}

describe("long-running jobs", () => {
  beforeAll(() => seedTenant());

  it("keeps a run answered 202 + Edgecron-Async RUNNING until the target completes it with its token", async () => {
    const { jobId, jobSpec, path } = longRunningJob("async-ok", "/async");
    await placeJob(snapshot(jobId, jobSpec));
    const { runId, token, run } = await acceptedAttempt(jobId, path);
    expect(token).toMatch(/^ert1\.\d+\.1\.\d+\./);
    expect(JSON.parse(run.events_json).at(-1)).toMatchObject({
      state: "RUNNING",
      reason: "target accepted the work (202); waiting for it to report back",
    });

    const done = await report("complete", runId, token, { status: "succeeded", result: { rows: 1200 } });
    expect(done).toMatchObject({ status: 200, body: { run_id: runId, attempt: 1, state: "SUCCEEDED" } });
    const history = await waitForHistoryState(jobId, "SUCCEEDED");
    expect(statesOf(history)).toEqual([
      "SCHEDULED",
      "ACQUIRED",
      "DISPATCHED",
      "RUNNING",
      "RUNNING",
      "SUCCEEDED",
    ]);
    const read = await api<Record<string, unknown>>("GET", `/v1/runs/${runId}`, {
      headers: { "edgecron-tenant": TENANT_ID },
    });
    expect(read.body).toMatchObject({ state: "SUCCEEDED", result: { rows: 1200 }, target_status: 202 });
    expect(read.body.accepted_at).toEqual(expect.any(String));
    // The attempt's duration runs from its claim, not from the target's acceptance.
    const events = JSON.parse(history.events_json) as { state: string; at_ms: number }[];
    const claimedAtMs = events.find((event) => event.state === "RUNNING")?.at_ms ?? 0;
    expect(read.body.duration_ms).toBe((events.at(-1)?.at_ms ?? 0) - claimedAtMs);
    expect(await targetCalls(path)).toHaveLength(1);
  });

  it("refuses a missing token (401), a wrong one or another run's (403), and a bad body (400); the run stays open", async () => {
    const { jobId, jobSpec, path } = longRunningJob("async-auth", "/async");
    await placeJob(snapshot(jobId, jobSpec));
    const { runId, token } = await acceptedAttempt(jobId, path);
    const other = longRunningJob("async-other", "/async");
    await placeJob(snapshot(other.jobId, other.jobSpec));
    const otherAttempt = await acceptedAttempt(other.jobId, other.path);

    const missing = await report("complete", runId, null, { status: "succeeded" });
    expect(missing).toMatchObject({
      status: 401,
      type: "application/problem+json",
      body: { code: "unauthorized" },
    });
    const forged = `${token.slice(0, -4)}AAAA`;
    expect((await report("complete", runId, forged, { status: "succeeded" })).body.code).toBe(
      "invalid_run_token",
    );
    const borrowed = await report("heartbeat", runId, otherAttempt.token);
    expect(borrowed).toMatchObject({ status: 403, body: { code: "invalid_run_token" } });
    const apiKeyInstead = await report("complete", runId, "test-admin-token", { status: "succeeded" });
    expect(apiKeyInstead.status).toBe(403);
    const bad = await report("complete", runId, token, {
      status: "done",
      result: "x".repeat(5000),
      extra: 1,
    });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual([
      "extra",
      "result",
      "status",
    ]);
    expect(await shardRun(jobId)).toMatchObject({ state: "RUNNING", attempt: 1 });

    for (const open of [{ runId, token }, otherAttempt]) {
      expect((await report("complete", open.runId, open.token, { status: "succeeded" })).status).toBe(200);
    }
  });

  it("extends the lease on a heartbeat; without one the attempt fails and is retried, and the old attempt's reports are refused", async () => {
    const { jobId, jobSpec, path } = longRunningJob("async-lease", "/async", { heartbeat_timeout: "10m" });
    await placeJob(snapshot(jobId, jobSpec));
    const first = await acceptedAttempt(jobId, path);

    // About to expire: a heartbeat pushes the lease out by heartbeat_timeout, so the tick keeps it.
    await setLease(jobId, first.runId, Date.now() + 2_000);
    const beforeMs = Date.now();
    const beat = await report("heartbeat", first.runId, first.token);
    expect(beat).toMatchObject({ status: 200, body: { run_id: first.runId, attempt: 1 } });
    const leaseMs = Date.parse(beat.body.lease_expires_at as string);
    expect(leaseMs).toBeGreaterThanOrEqual(beforeMs + 600_000);
    expect((await shardRun(jobId)).due_at_ms).toBe(leaseMs);
    await runDurableObjectAlarm(stubFor(jobId));
    expect(await shardRun(jobId)).toMatchObject({ state: "RUNNING", attempt: 1 });

    // No heartbeat in time: a failed attempt, retried under the retry policy (a new fence).
    await setLease(jobId, first.runId, Date.now() - 1);
    await runDurableObjectAlarm(stubFor(jobId));
    const second = await acceptedAttempt(jobId, path, 2);
    expect(second.run.fence).not.toBe(Number(first.token.split(".")[3]));
    const events = JSON.parse(second.run.events_json) as { state: string; reason: string }[];
    expect(events).toContainEqual(
      expect.objectContaining({
        state: "FAILED",
        reason: "no heartbeat or completion within the job's heartbeat_timeout (lease expired)",
      }),
    );

    const late = await report("complete", first.runId, first.token, { status: "succeeded" });
    expect(late).toMatchObject({ status: 409, body: { code: "attempt_superseded" } });
    expect((await report("heartbeat", first.runId, first.token)).body.code).toBe("attempt_superseded");
    expect(await shardRun(jobId)).toMatchObject({ state: "RUNNING", attempt: 2 });

    const done = await report("complete", second.runId, second.token, { status: "succeeded" });
    expect(done).toMatchObject({ status: 200, body: { attempt: 2, state: "SUCCEEDED" } });
    const again = await report("complete", second.runId, second.token, { status: "succeeded" });
    expect(again).toMatchObject({ status: 409, body: { code: "attempt_superseded" } });
  });

  it("with completion: callback treats a 200 as accepted; a non-retryable failure dead-letters with its error", async () => {
    const { jobId, jobSpec, path } = longRunningJob("callback", "/ok", {
      completion: "callback",
      heartbeat_timeout: "10s",
    });
    await placeJob(snapshot(jobId, jobSpec));
    const { runId, token, run } = await acceptedAttempt(jobId, path);
    // The call's own lease (timeout 30 s + grace) gives way to the heartbeat timeout.
    expect(run.due_at_ms).toBe((run.accepted_at_ms as number) + 10_000);
    const failed = await report("complete", runId, token, {
      status: "failed",
      error: "disk full",
      retryable: false,
      result: { written: 0 },
    });
    expect(failed).toMatchObject({ status: 200, body: { state: "DEAD_LETTERED", attempt: 1 } });
    const history = await waitForHistoryState(jobId, "DEAD_LETTERED");
    expect(history.error).toBe("target reported failure: disk full");
    expect(await targetCalls(path)).toHaveLength(1);
  });

  it("counts an open async run as in flight: overlap skip skips the next instant until it completes", async () => {
    const { jobId, jobSpec, path } = longRunningJob("overlap", "/async", {
      schedule: { type: "interval", every: "1h" },
      overlap: "skip",
    });
    await placeJob(snapshot(jobId, jobSpec));
    const firstAtMs = Date.now() - 1_000;
    await makeJobDue(jobId, firstAtMs);
    await runDurableObjectAlarm(stubFor(jobId));
    const { runId, token } = await acceptedAttempt(jobId, path);

    await makeJobDue(jobId, firstAtMs + 500);
    await runDurableObjectAlarm(stubFor(jobId));
    const runs = await shardRows<ShardRun>(
      jobId,
      "SELECT * FROM runs WHERE job_id = ? ORDER BY scheduled_at_ms",
      jobId,
    );
    expect(runs.map((run) => run.state)).toEqual(["RUNNING", "SKIPPED"]);
    expect(JSON.parse(runs[1]!.events_json)[0].reason).toMatch(/overlap skip/);
    expect(await targetCalls(path)).toHaveLength(1);

    expect((await report("complete", runId, token, { status: "succeeded" })).status).toBe(200);
  });
});
