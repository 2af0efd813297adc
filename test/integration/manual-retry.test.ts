// The fix loop of a paused job: pause_after_failures pauses it, the operator fixes the endpoint,
// redrives (or retries) the dead letter, and resumes. A pause governs the job's schedule, not an
// operator's manual retry: the retried run reaches the target while the job stays PAUSED.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { runIdFor } from "../../src/core/runs/run-id";
import { retryRun } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import {
  placeJob,
  seedTenant,
  shardRows,
  shardStub,
  snapshot,
  spec,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface Job {
  id: string;
  shard: number;
  status: string;
}
interface Run {
  id: string;
  state: string;
  attempt: number;
}
interface DeadLetter {
  id: string;
  run_id: string;
  attempt: number;
  redriven_at: string | null;
}

let pathCounter = 0;
function uniquePath(kind: string): string {
  pathCounter += 1;
  return `/${kind}/manual-retry-${Date.now().toString(36)}-${pathCounter}`;
}

/**
 * A yearly job whose first call fails (503, one attempt) and that pauses after one dead letter:
 * triggered once, it ends PAUSED with its run dead-lettered.
 */
async function pausedJobWithDeadLetter(t: TenantWithKey, targetPath: string) {
  const created = await api<Job>("POST", "/v1/jobs", {
    token: t.key,
    body: {
      name: "fix-loop",
      schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
      target: { url: targetUrl(targetPath) },
      retry: { max_attempts: 1 },
      pause_after_failures: 1,
    },
  });
  expect(created.status).toBe(201);
  const job = created.body;
  expect((await api("POST", `/v1/jobs/${job.id}/trigger`, { token: t.key })).status).toBe(202);
  const letter = await vi.waitFor(async () => {
    const res = await api<{ data: DeadLetter[] }>("GET", `/v1/dead-letters?job_id=${job.id}`, {
      token: t.key,
    });
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0]!;
  }, WAIT);
  await vi.waitFor(async () => {
    expect((await api<Job>("GET", `/v1/jobs/${job.id}`, { token: t.key })).body.status).toBe("PAUSED");
  }, WAIT);
  return { job, letter };
}

/** Forces the job's timer due and runs its shard's alarm: a job whose schedule may fire fires now. */
async function forceScheduleDue(job: Job): Promise<void> {
  await inShardTables(shardStub(job.shard), (sql, _storage) => {
    sql.exec(
      "UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ? WHERE job_id = ?",
      Date.now() - 1_000,
      Date.now() - 1_000,
      job.id,
    );
  });
  await runDurableObjectAlarm(shardStub(job.shard));
}

async function shardRunCount(job: Job): Promise<number> {
  return inShardTables(shardStub(job.shard), (sql, _storage) => {
    return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM runs WHERE job_id = ?", job.id).one().n;
  });
}

describe("a paused job's dead letter", () => {
  const ways = [
    {
      name: "redrive",
      start: (t: TenantWithKey, letter: DeadLetter) =>
        api<{ run_id: string; attempt: number }>("POST", `/v1/dead-letters/${letter.id}/redrive`, {
          token: t.key,
        }),
    },
    {
      name: "retry",
      start: (t: TenantWithKey, letter: DeadLetter) =>
        api<{ run_id: string; attempt: number }>("POST", `/v1/runs/${letter.run_id}/retry`, { token: t.key }),
    },
  ];

  for (const way of ways) {
    it(`is ${way.name === "redrive" ? "redriven" : "retried"}: the run reaches the target, the job stays PAUSED and its schedule does not fire`, async () => {
      const t = await createTenantWithKey("fix-loop");
      const targetPath = uniquePath("flaky/1");
      const { job, letter } = await pausedJobWithDeadLetter(t, targetPath);

      const started = await way.start(t, letter);
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({ run_id: letter.run_id, attempt: 2 });
      const run = await vi.waitFor(async () => {
        const res = await api<Run>("GET", `/v1/runs/${letter.run_id}`, { token: t.key });
        expect(res.body.state).toBe("SUCCEEDED");
        return res.body;
      }, WAIT);
      expect(run.attempt).toBe(2);
      const calls = await targetCalls(targetPath);
      expect(calls.map((call) => call.headers["edgecron-attempt"])).toEqual(["1", "2"]);

      expect((await api<Job>("GET", `/v1/jobs/${job.id}`, { token: t.key })).body.status).toBe("PAUSED");
      await forceScheduleDue(job);
      expect(await shardRunCount(job)).toBe(1);
      expect(await targetCalls(targetPath)).toHaveLength(2);
      expect((await api<Job>("GET", `/v1/jobs/${job.id}`, { token: t.key })).body.status).toBe("PAUSED");
    });
  }

  it("of a deleted job is refused with what to do instead, and stays redrivable", async () => {
    const t = await createTenantWithKey("fix-loop-deleted");
    const { job, letter } = await pausedJobWithDeadLetter(t, uniquePath("flaky/1"));
    expect((await api("DELETE", `/v1/jobs/${job.id}`, { token: t.key })).status).toBe(200);

    for (const path of [`/v1/dead-letters/${letter.id}/redrive`, `/v1/runs/${letter.run_id}/retry`]) {
      const refused = await api<{ code: string; detail: string }>("POST", path, { token: t.key });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("job_deleted");
      expect(refused.body.detail).toContain("create the job anew (POST /v1/jobs)");
    }
    const [listed] = (
      await api<{ data: DeadLetter[] }>("GET", `/v1/dead-letters?job_id=${job.id}`, { token: t.key })
    ).body.data;
    expect(listed?.redriven_at).toBeNull();
  });
});

describe("retryRunNow", () => {
  it("starts the dead-letter send over: a retried run that dead-letters again is sent at once", async () => {
    await seedTenant();
    const jobId = uniqueJobId("dlq-reset");
    const jobSpec = spec({
      schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
      target: { url: targetUrl(`/status/404/${jobId}`) },
    });
    const shard = await placeJob(snapshot(jobId, jobSpec));
    const atMs = Date.now() - 60_000;
    const runId = runIdFor(jobId, atMs);
    // A dead letter that was sent after three failed sends, the last backoff minutes long.
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      const nowMs = Date.now();
      sql.exec(
        `INSERT INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
           max_attempts, fence, job_version, events_json, created_at_ms, updated_at_ms, dirty, target_status,
           error, dlq_pending, dlq_reason, dlq_send_failures, dlq_retry_at_ms)
         VALUES (?, ?, 'ten_scheduling_tests', 'schedule', ?, ?, 'DEAD_LETTERED', 1, 1, 7, 1, '[]', ?, ?, 0,
           404, 'HTTP 404', 0, 'permanent', 3, ?)`,
        runId,
        jobId,
        atMs,
        atMs,
        nowMs,
        nowMs,
        nowMs + 10 * 60_000,
      );
    });

    expect(await retryRun(env, shard, runId)).toEqual({ ok: true, runId, attempt: 2 });
    const [reset] = await shardRows<{
      dlq_send_failures: number;
      dlq_retry_at_ms: number | null;
      manual: number;
    }>(jobId, "SELECT dlq_send_failures, dlq_retry_at_ms, manual FROM runs WHERE run_id = ?", runId);
    expect(reset).toEqual({ dlq_send_failures: 0, dlq_retry_at_ms: null, manual: 1 });
    // The new attempt fails for good (404) and its letter reaches D1 now, not in ten minutes.
    await vi.waitFor(async () => {
      const letter = await env.DB.prepare("SELECT attempt FROM dead_letters WHERE run_id = ?")
        .bind(runId)
        .first<{ attempt: number }>();
      expect(letter?.attempt).toBe(2);
    }, WAIT);
    expect(await targetCalls(`/status/404/${jobId}`)).toHaveLength(1);
  });
});
