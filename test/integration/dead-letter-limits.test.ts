// Dead letters can never jam a shard: sends are split to the queue's limits, a letter too large
// for one message goes by reference, a failed send waits with backoff and is never repeated
// identically, and the consumer stores bounded payloads in bounded inserts. Real shards, queues,
// D1 and target; only the queue in the backoff test is wrapped, to fail on purpose.
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { dispatchLeadMs } from "../../durable-objects/shard/dispatch/pass-settings";
import { sendDeadLetters } from "../../durable-objects/shard/runs/dead-letter-sends";
import type { ShardScheduler } from "../../durable-objects/shard/shard-scheduler";
import type { StoredPayload } from "../../src/delivery/dead-letter-payload";
import worker from "../../src/index";
import { pushJobs, shardOfJob } from "../../src/shard/client";
import type { DeadLetterMessage } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  deadLettersOf,
  deleteLargeJobs,
  expectBoundedPayloads,
  FAR_FUTURE,
  jobIdsOnAnUnusedShard,
  LONG_WAIT,
  largeJob,
  pendingLetters,
  placeLargeJobs,
  seedPendingLetters,
} from "../helpers/dead-letters";
import {
  seedTenant,
  shardRows,
  snapshot,
  spec,
  stubFor,
  targetCalls,
  targetUrl,
} from "../helpers/scheduling";

// Letters, their alerts and the steady job's runs settle asynchronously after each test's
// assertions: delete the alarms they leave behind.
disarmShardsAfterEach();

describe("dead letters on a shard", () => {
  it("records 80 large-bodied runs dead-lettered at once, alerts each, and the shard keeps firing another tenant's job", async () => {
    const tenantId = `ten_dl80_${Date.now().toString(36)}`;
    const otherTenantId = `ten_dl80_other_${Date.now().toString(36)}`;
    await seedTenant(tenantId);
    await seedTenant(otherTenantId);
    const [steadyId, ...letterIds] = jobIdsOnAnUnusedShard("dl80", 81) as [string, ...string[]];
    const steadySpec = spec({
      schedule: { type: "interval", every: "1s" },
      target: { url: targetUrl(`/ok/dl-steady/${steadyId}`) },
    });
    await pushJobs(env, [{ ...snapshot(steadyId, steadySpec), tenantId: otherTenantId }]);
    // Placing 80 large jobs takes a while: they all fire together at this instant.
    const due = { type: "once" as const, at: new Date(Date.now() + 5_000).toISOString() };
    const jobs = letterIds.map((jobId, index) => largeJob(jobId, index, due));
    await placeLargeJobs(tenantId, jobs);

    const letters = await vi.waitFor(async () => {
      const rows = await deadLettersOf(tenantId);
      expect(rows).toHaveLength(80);
      return rows;
    }, LONG_WAIT);
    expect(new Set(letters.map((letter) => letter.reason))).toEqual(new Set(["permanent"]));
    expectBoundedPayloads(letters, jobs);
    expect(await pendingLetters(steadyId)).toBe(0);
    await vi.waitFor(async () => {
      const { results } = await env.DB.prepare(
        "SELECT job_id FROM alerts WHERE tenant_id = ? AND kind = 'dead_lettered'",
      )
        .bind(tenantId)
        .all<{ job_id: string }>();
      expect(results).toHaveLength(80);
      expect(
        (await targetCalls("/ok/dl-on-failure/")).filter((call) =>
          letterIds.some((id) => call.path.endsWith(id)),
        ),
      ).toHaveLength(80);
    }, LONG_WAIT);

    const firedSoFar = (await targetCalls(`/ok/dl-steady/${steadyId}`)).length;
    expect(firedSoFar).toBeGreaterThan(0);
    await vi.waitFor(
      async () =>
        expect((await targetCalls(`/ok/dl-steady/${steadyId}`)).length).toBeGreaterThanOrEqual(
          firedSoFar + 2,
        ),
      LONG_WAIT,
    );
    await pushJobs(env, [{ ...snapshot(steadyId, steadySpec, 2, "DELETED"), tenantId: otherTenantId }]);
  }, 180_000);

  it("recovers a shard already jammed: pending letters too large for one batch are re-sent split or by reference", async () => {
    const tenantId = `ten_dlstuck_${Date.now().toString(36)}`;
    await seedTenant(tenantId);
    const jobs = jobIdsOnAnUnusedShard("dlstuck", 20).map((jobId, index) =>
      largeJob(jobId, index, FAR_FUTURE),
    );
    await seedPendingLetters(tenantId, jobs);
    // Placing the jobs arms the shard's alarm: the real alarm does the rest.
    await placeLargeJobs(tenantId, jobs);
    const letters = await vi.waitFor(async () => {
      const rows = await deadLettersOf(tenantId);
      expect(rows).toHaveLength(20);
      return rows;
    }, LONG_WAIT);
    expect(letters.map((letter) => letter.reason)).toEqual(Array(20).fill("exhausted"));
    expectBoundedPayloads(letters, jobs);
    expect(await pendingLetters(jobs[0]!.jobId)).toBe(0);
    await deleteLargeJobs(tenantId, jobs);
  }, 120_000);

  it("keeps letters whose send failed pending with backoff, re-sends them by reference, then each alone", async () => {
    const tenantId = `ten_dlflaky_${Date.now().toString(36)}`;
    await seedTenant(tenantId);
    const jobs = jobIdsOnAnUnusedShard("dlflaky", 3).map((jobId, index) =>
      largeJob(jobId, index, FAR_FUTURE),
    );
    await placeLargeJobs(tenantId, jobs);
    await seedPendingLetters(tenantId, jobs);
    const sends: DeadLetterMessage[][] = [];
    let failuresLeft = 0;
    const flakyQueue = {
      async sendBatch(messages: Iterable<MessageSendRequest<DeadLetterMessage>>) {
        const batch = [...messages];
        sends.push(batch.map((message) => message.body));
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          throw new Error("queue unavailable");
        }
        await env.DEAD_LETTER_QUEUE.sendBatch(batch);
      },
    } as unknown as Queue;
    const shard = shardOfJob(env, jobs[0]!.jobId);
    // A minute ahead, so the alarm armed for the backoff below is told apart from "at once".
    const startMs = Date.now() + 60_000;
    const pass = (atMs: number, failures: number) => {
      failuresLeft = failures;
      sends.length = 0;
      return runInDurableObject(stubFor(jobs[0]!.jobId), (instance: ShardScheduler) =>
        sendDeadLetters(instance.state, flakyQueue, shard, atMs),
      );
    };
    const failureState = () =>
      shardRows<{ dlq_pending: number; dlq_send_failures: number; dlq_retry_at_ms: number | null }>(
        jobs[0]!.jobId,
        "SELECT dlq_pending, dlq_send_failures, dlq_retry_at_ms FROM runs WHERE state = 'DEAD_LETTERED' AND tenant_id = ?",
        tenantId,
      );

    // First try: split batches, inline where it fits. The queue fails: nothing thrown, all pending.
    expect(await pass(startMs, 10)).toEqual({ sent: 0, byReference: 0, failed: 3 });
    expect(sends.flat().filter((letter) => letter.payload_ref === undefined)).toHaveLength(2);
    expect(await failureState()).toEqual(
      Array(3).fill({ dlq_pending: 1, dlq_send_failures: 1, dlq_retry_at_ms: startMs + 1_000 }),
    );
    // The shard's alarm waits for the backoff instead of coming back every 250 ms.
    await pushJobs(env, [{ ...snapshot(jobs[0]!.jobId, jobs[0]!.jobSpec), tenantId }]);
    const alarmAtMs = await runInDurableObject(stubFor(jobs[0]!.jobId), (_instance, state) =>
      state.storage.getAlarm(),
    );
    expect(alarmAtMs).toBe(startMs + 1_000);
    // Within the backoff nothing is sent.
    expect(await pass(startMs + 999, 0)).toEqual({ sent: 0, byReference: 0, failed: 0 });
    expect(sends).toHaveLength(0);
    // The retry is not the batch that failed: every letter by reference. It fails again.
    expect(await pass(startMs + 1_000, 10)).toMatchObject({ sent: 0, failed: 3 });
    expect(
      sends.flat().every((letter) => letter.payload_ref !== undefined && letter.payload.body === null),
    ).toBe(true);
    expect(await failureState()).toEqual(
      Array(3).fill({ dlq_pending: 1, dlq_send_failures: 2, dlq_retry_at_ms: startMs + 3_000 }),
    );
    // After a second failure each goes alone; the queue is back and all three are sent.
    expect(await pass(startMs + 3_000, 0)).toEqual({ sent: 3, byReference: 3, failed: 0 });
    expect(sends.map((batch) => batch.length)).toEqual([1, 1, 1]);
    expect(await failureState()).toEqual(
      Array(3).fill({ dlq_pending: 0, dlq_send_failures: 0, dlq_retry_at_ms: null }),
    );
    // The consumer read each payload from the job in D1.
    const letters = await vi.waitFor(async () => {
      const rows = await deadLettersOf(tenantId);
      expect(rows).toHaveLength(3);
      return rows;
    }, LONG_WAIT);
    expectBoundedPayloads(letters, jobs);
    // Run the backoff alarm now: it finds nothing pending and re-arms for the jobs' far instant
    // (less the dispatch lead window: the shard sends a run that far ahead of its instant).
    await runDurableObjectAlarm(stubFor(jobs[0]!.jobId));
    expect(await runInDurableObject(stubFor(jobs[0]!.jobId), (_i, state) => state.storage.getAlarm())).toBe(
      Date.parse(FAR_FUTURE.at) - dispatchLeadMs(env.DISPATCH_LEAD_MS),
    );
    await deleteLargeJobs(tenantId, jobs);
  }, 60_000);
});

describe("the dead-letter consumer", () => {
  it("records a full batch of letters sent before by-reference existed, each with a 100 KB body", async () => {
    const tenantId = `ten_dlold_${Date.now().toString(36)}`;
    await seedTenant(tenantId);
    const body = "y".repeat(100 * 1024);
    const messages = Array.from({ length: 100 }, (_, index) => ({
      id: `msg-old-${index}`,
      timestamp: new Date(),
      attempts: 1,
      body: {
        kind: "dead_letter",
        run_id: `run_oldshape${index}`,
        job_id: `job_oldshape${index}`,
        tenant: tenantId,
        shard: 0,
        scheduled_at: Date.now(),
        attempt: 1,
        reason: "permanent",
        last_error: "HTTP 410",
        target_status: 410,
        payload: { method: "PUT", url: "https://example.com/old", headers: { "x-a": "1" }, body },
        on_failure: null,
      } satisfies DeadLetterMessage,
    }));
    const batch = createMessageBatch("edgecron-dead-letters", messages);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toHaveLength(100);
    expect(result.retryMessages).toEqual([]);
    const letters = await deadLettersOf(tenantId);
    expect(letters).toHaveLength(100);
    const payload = JSON.parse(letters[0]!.payload_json) as StoredPayload;
    expect(payload).toMatchObject({
      method: "PUT",
      headers: { "x-a": "1" },
      body_truncated: true,
      body_bytes: body.length,
    });
  });
});

describe("a letter sent by reference whose job is gone", () => {
  it("is recorded with the method and URL it carried, flagged payload_unavailable", async () => {
    const tenantId = `ten_dlgone_${Date.now().toString(36)}`;
    await seedTenant(tenantId);
    const letter: DeadLetterMessage = {
      kind: "dead_letter",
      run_id: "run_refgone1",
      job_id: "job_refgone_missing",
      tenant: tenantId,
      shard: 0,
      scheduled_at: Date.now(),
      attempt: 2,
      reason: "exhausted",
      last_error: "HTTP 503",
      target_status: 503,
      payload: { method: "PATCH", url: "https://example.com/gone", headers: {}, body: null },
      on_failure: null,
      payload_ref: { run_id: "run_refgone1", job_id: "job_refgone_missing", shard: 0 },
    };
    const batch = createMessageBatch("edgecron-dead-letters", [
      { id: "msg-ref-gone", timestamp: new Date(), attempts: 1, body: letter },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["msg-ref-gone"]);
    const [row] = await deadLettersOf(tenantId);
    expect(JSON.parse(row!.payload_json)).toEqual({
      method: "PATCH",
      url: "https://example.com/gone",
      headers: {},
      body: null,
      payload_unavailable: true,
    });
  });
});
