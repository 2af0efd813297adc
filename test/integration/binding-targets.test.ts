// Targets that are Cloudflare bindings, end to end in the workers pool: a real shard fires the
// job, the real dispatch queue delivers it, and the call reaches an auxiliary Worker
// (test/fixtures/targets-worker) through a service binding, a Workflow binding or a Queue. The
// auxiliary Worker records everything it receives; tests read the records through it.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { JobCreate } from "../../src/core/jobs/job-spec";
import { runIdempotencyKey } from "../../src/core/runs/run-idempotency";
import { workflowInstanceId } from "../../src/core/targets/targets";
import { callTarget } from "../../src/delivery/target-call";
import { clearFaults, injectFaults } from "../../src/service/fault-injection";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  historyOf,
  makeJobDue,
  placeJob,
  SIGNING_SECRET,
  seedTenant,
  snapshot,
  spec,
  stubFor,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";
import { deliveryVerifies } from "../helpers/signature";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

/** The bindings vitest.config.ts adds beside the Env that wrangler.toml declares. */
const targetEnv = env as unknown as { BILLING: Fetcher; REPORT_FLOW: Workflow };

interface Received {
  key: string;
  value: Record<string, unknown>;
}

/** What the auxiliary Worker recorded under `<kind>:<idempotency key>`. */
async function received(kind: "service" | "workflow" | "queue", idempotencyKey: string): Promise<Received[]> {
  const prefix = encodeURIComponent(`${kind}:${idempotencyKey}:`);
  const res = await targetEnv.BILLING.fetch(`https://billing.invalid/__received?prefix=${prefix}`);
  return res.json<Received[]>();
}

/** A one-shot job an hour out (made due by hand), retried at once if it fails. */
function bindingJob(label: string, target: JobCreate["target"], maxAttempts = 3) {
  const jobId = uniqueJobId(label);
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
    target,
    retry: {
      max_attempts: maxAttempts,
      backoff: { initial: "0s", max: "1s", multiplier: 2, jitter: "none" },
    },
  });
  return { jobId, jobSpec };
}

/** Places the job, fires its instant once and returns the run's idempotency key. */
async function fireOnce(job: { jobId: string; jobSpec: ReturnType<typeof spec> }): Promise<string> {
  await placeJob(snapshot(job.jobId, job.jobSpec));
  const scheduledAtMs = Date.now();
  await makeJobDue(job.jobId, scheduledAtMs);
  await runDurableObjectAlarm(stubFor(job.jobId));
  return runIdempotencyKey(job.jobId, scheduledAtMs);
}

async function settledRun(jobId: string, state: string) {
  return vi.waitFor(async () => {
    const [run] = await historyOf(jobId);
    expect(run?.state).toBe(state);
    return run!;
  }, WAIT);
}

describe("binding targets", () => {
  beforeAll(() => seedTenant());

  describe("a service binding", () => {
    it("gets the HTTP target's request through the binding, once per instant", async () => {
      const job = bindingJob("svc", {
        type: "service",
        binding: "BILLING",
        path: "/hook?plan=pro",
        method: "PUT",
        headers: { "x-team": "billing" },
        body: { invoice: 42 },
      });
      const key = await fireOnce(job);
      const run = await settledRun(job.jobId, "SUCCEEDED");
      expect(run.target_status).toBe(200);
      // A second tick finds nothing due: the instant was called once.
      await runDurableObjectAlarm(stubFor(job.jobId));
      const calls = await received("service", key);
      expect(calls).toHaveLength(1);
      const call = calls[0]!.value as {
        method: string;
        url: string;
        headers: Record<string, string>;
        body: string;
      };
      expect(call.method).toBe("PUT");
      expect(call.url).toBe("https://billing.invalid/hook?plan=pro");
      expect(call.body).toBe('{"invoice":42}');
      expect(call.headers).toMatchObject({
        "idempotency-key": key,
        "edgecron-job-id": job.jobId,
        "edgecron-attempt": "1",
        "content-type": "application/json",
        "x-team": "billing",
      });
      expect(call.headers["edgecron-signature"]).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
      // The Worker verifies it as any receiver does: the URL it sees is the URL that was signed.
      expect(await deliveryVerifies(call, [SIGNING_SECRET])).toBe(true);
      expect(
        await deliveryVerifies({ ...call, url: "https://billing.invalid/other" }, [SIGNING_SECRET]),
      ).toBe(false);
    });

    it("is retried when it fails, then dead-lettered with what it was sent", async () => {
      const job = bindingJob("svcfail", { type: "service", binding: "BILLING", path: "/fail" }, 2);
      const key = await fireOnce(job);
      const run = await settledRun(job.jobId, "DEAD_LETTERED");
      expect(run.attempt).toBe(2);
      expect(run.error).toContain("target answered 503");
      const calls = await received("service", key);
      expect(
        calls.map((call) => (call.value.headers as Record<string, string>)["edgecron-attempt"]).sort(),
      ).toEqual(["1", "2"]);
      const letter = await vi.waitFor(async () => {
        const row = await env.DB.prepare("SELECT payload_json FROM dead_letters WHERE job_id = ?")
          .bind(job.jobId)
          .first<{ payload_json: string }>();
        expect(row).not.toBeNull();
        return JSON.parse(row!.payload_json);
      }, WAIT);
      expect(letter).toMatchObject({ method: "POST", url: "https://billing.invalid/fail" });
    });
  });

  it("gives up on a service-binding call that outlives the job's timeout, as a retryable failure", async () => {
    const startedMs = Date.now();
    const outcome = await callTarget({
      target: { type: "service", binding: "BILLING", path: "/slow", method: "POST", headers: {} },
      runId: "run_slow",
      jobId: "job_slow",
      scheduledAtMs: startedMs,
      attempt: 1,
      idempotencyKey: `job_slow:${crypto.randomUUID()}`,
      secrets: [],
      timeoutMs: 500,
      allowPrivate: false,
      nowMs: startedMs,
      bindings: env as unknown as Record<string, unknown>,
    });
    expect(outcome.kind).toBe("retryable");
    expect(Date.now() - startedMs).toBeLessThan(2_500);
  });

  describe("a Workflow", () => {
    it("gets one instance per instant, named by the idempotency key", async () => {
      const job = bindingJob("flow", { type: "workflow", binding: "REPORT_FLOW", body: { report: "daily" } });
      const key = await fireOnce(job);
      const run = await settledRun(job.jobId, "SUCCEEDED");
      expect(run.target_status).toBeNull();
      const instanceId = workflowInstanceId(key);
      const records = await vi.waitFor(async () => {
        const found = await received("workflow", key);
        expect(found).toHaveLength(1);
        return found;
      }, WAIT);
      expect(records[0]!.value).toMatchObject({
        instance_id: instanceId,
        payload: { idempotency_key: key, job_id: job.jobId, attempt: 1, body: { report: "daily" } },
      });
      expect(JSON.parse(run.events_json).at(-1).reason).toBe(`workflow instance ${instanceId} created`);
    });

    it("creates no second instance when a crash between call and report makes the run go again", async () => {
      const job = bindingJob("flowcrash", { type: "workflow", binding: "REPORT_FLOW" });
      await injectFaults(env, "consumer", { throwBeforeReport: true });
      let key: string;
      try {
        key = await fireOnce(job);
        // The first delivery created the instance, then crashed before reporting: the queue
        // redelivers the message, whose claim the shard refuses (the run is already RUNNING).
        await vi.waitFor(async () => expect(await received("workflow", key)).toHaveLength(1), WAIT);
      } finally {
        await clearFaults(env, "consumer");
      }
      // The RUNNING lease expires: a failed attempt, retried at once under the same key.
      const stub = stubFor(job.jobId);
      await inShardTables(stub, async (sql, storage) => {
        sql.exec("UPDATE runs SET due_at_ms = ? WHERE state = 'RUNNING'", Date.now() - 1);
        await storage.setAlarm(Date.now() + 60_000);
      });
      await runDurableObjectAlarm(stub);
      const run = await settledRun(job.jobId, "SUCCEEDED");
      expect(run.attempt).toBe(2);
      // Give a (wrong) second instance the time the first one needed to record itself.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const records = await received("workflow", key);
      expect(records).toHaveLength(1);
      expect(records[0]!.value.instance_id).toBe(workflowInstanceId(key));
    });
  });

  describe("a Queue", () => {
    it("gets one message with the body and the run's metadata", async () => {
      const job = bindingJob("queue", { type: "queue", binding: "USER_EVENTS", body: "hello" });
      const key = await fireOnce(job);
      const run = await settledRun(job.jobId, "SUCCEEDED");
      expect(JSON.parse(run.events_json).at(-1).reason).toBe("queue message sent");
      const messages = await vi.waitFor(async () => {
        const found = await received("queue", key);
        expect(found).toHaveLength(1);
        return found;
      }, WAIT);
      expect(messages[0]!.value).toEqual({
        idempotency_key: key,
        job_id: job.jobId,
        run_id: run.id,
        scheduled_at: key.slice(job.jobId.length + 1),
        attempt: 1,
        body: "hello",
      });
    });
  });
});
