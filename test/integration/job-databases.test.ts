// The job store across JOB_DATABASES D1 databases (2 here, as in `npm start`) and the dispatch
// queues (2): where a job's row lives, lists gathered across databases with a stable cursor, the
// Idempotency-Key across databases, and the shard -> queue map. Real D1s, shards and queues.
import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tickSettings } from "../../durable-objects/shard/dispatch/pass-settings";
import type { Job } from "../../src/client/types";
import { jobDatabaseIndex, jobStores } from "../../src/db/databases";
import worker from "../../src/index";
import { dispatchQueueIndex, dispatchQueueName } from "../../src/queue/dispatch-queues";
import { shardCount } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { countJobs } from "../helpers/job-databases";

// Far-future jobs leave their shards' alarms armed: delete them after each test.
disarmShardsAfterEach();

const stores = () => jobStores(env);

async function rowsHolding(jobId: string): Promise<number[]> {
  const found = await Promise.all(
    stores().homes.map(async (db, index) =>
      (await db.prepare("SELECT 1 FROM jobs WHERE id = ?").bind(jobId).first()) === null ? [] : [index],
    ),
  );
  return found.flat();
}

async function createJobs(key: string, count: number): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api<Job>("POST", "/v1/jobs", { token: key, body: jobBody() });
    expect(res.status).toBe(201);
    jobs.push(res.body);
  }
  return jobs;
}

describe("where a job's row lives", () => {
  it("is the one database its id hashes to, and only there; every route finds it", async () => {
    expect(stores().homes).toHaveLength(2);
    const t = await createTenantWithKey("homes");
    const jobs = await createJobs(t.key, 12);
    const used = new Set<number>();
    for (const job of jobs) {
      const home = jobDatabaseIndex(job.id, 2);
      used.add(home);
      expect(await rowsHolding(job.id)).toEqual([home]);
      const read = await api<Job>("GET", `/v1/jobs/${job.id}`, { token: t.key });
      expect(read.status).toBe(200);
      const paused = await api<Job>("POST", `/v1/jobs/${job.id}/pause`, { token: t.key });
      expect(paused.body.status).toBe("PAUSED");
    }
    // 12 random ids over 2 databases: both used (1 in 2^11 that they are not).
    expect([...used].sort()).toEqual([0, 1]);
    // Nothing goes to the control database's own jobs table any more.
    const legacy = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs").first<{ n: number }>();
    expect(legacy?.n).toBe(0);
  });

  it("keeps a batch in one database (one transaction), and a keyed create where its key hashes", async () => {
    const t = await createTenantWithKey("batch");
    const batch = await api<{ results: { job: Job }[] }>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: { jobs: Array.from({ length: 40 }, () => jobBody()) },
    });
    expect(batch.status).toBe(200);
    const homes = new Set(batch.body.results.map((result) => jobDatabaseIndex(result.job.id, 2)));
    expect(homes.size).toBe(1);
    // The database hash is independent of the shard hash: one database's jobs use every kind of
    // shard, odd and even (a shared hash would make the database exactly shard % 2).
    const shardParities = new Set(batch.body.results.map((result) => result.job.shard % 2));
    expect(shardParities.size).toBe(2);

    // Two concurrent creates under one key meet in one database: exactly one job exists.
    const body = jobBody();
    const [first, second] = await Promise.all(
      [0, 1].map(() =>
        api<Job>("POST", "/v1/jobs", { token: t.key, body, headers: { "idempotency-key": "twins" } }),
      ),
    );
    expect(first?.status).toBe(201);
    expect(second?.status).toBe(201);
    expect(first?.body.id).toBe(second?.body.id);
    expect(await countJobs("WHERE tenant_id = ? AND idempotency_key = 'twins'", t.tenantId)).toBe(1);
  });
});

describe("GET /v1/jobs across the databases", () => {
  it("pages newest first with no job skipped or repeated while jobs are created during paging", async () => {
    const t = await createTenantWithKey("paging");
    const before = await createJobs(t.key, 17);
    const seen: string[] = [];
    const createdDuring: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "?limit=4" : `?limit=4&cursor=${cursor}`;
      const page = await api<{ data: Job[]; next_cursor: string | null }>("GET", `/v1/jobs${query}`, {
        token: t.key,
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(4);
      seen.push(...page.body.data.map((job) => job.id));
      cursor = page.body.next_cursor;
      // New jobs after every page: they are newer than the cursor, so they sort before it.
      createdDuring.push(...(await createJobs(t.key, 2)).map((job) => job.id));
    } while (cursor !== null);
    const expected = before.map((job) => job.id).reverse();
    expect(seen).toEqual(expected);
    expect(new Set(expected.map((id) => jobDatabaseIndex(id, 2))).size).toBe(2);
    // A fresh walk now sees every job once, the ones created during paging first.
    const all = await api<{ data: Job[] }>("GET", "/v1/jobs?limit=100", { token: t.key });
    expect(all.body.data.map((job) => job.id)).toEqual([...createdDuring.reverse(), ...expected]);
  });

  it("counts jobs by status over every database in /v1/stats", async () => {
    const t = await createTenantWithKey("stats");
    await createJobs(t.key, 6);
    const stats = await api<{ jobs_by_status: Record<string, number> }>("GET", "/v1/stats", { token: t.key });
    expect(stats.body.jobs_by_status.ACTIVE).toBe(6);
  });
});

describe("the dispatch queues", () => {
  it("maps shard s to queue s % DISPATCH_QUEUES, each a bound queue", () => {
    expect(env.DISPATCH_QUEUES).toBe("2");
    for (let shard = 0; shard < shardCount(env); shard++) {
      const queue = tickSettings(env, shard).queue;
      expect(queue).toBe(shard % 2 === 0 ? env.DISPATCH_QUEUE : env.DISPATCH_QUEUE_1);
      expect(dispatchQueueIndex(shard, 2)).toBe(shard % 2);
    }
    // A shard that never learnt its number (only tests seed one) still has a queue.
    expect(tickSettings(env, -1).queue).toBe(env.DISPATCH_QUEUE);
    expect([0, 1, 2].map(dispatchQueueName)).toEqual([
      "edgecron-dispatch",
      "edgecron-dispatch-1",
      "edgecron-dispatch-2",
    ]);
  });

  it("serves a batch from the second queue as a dispatch batch (a refused run is acked, not retried)", async () => {
    const { createMessageBatch } = await import("cloudflare:test");
    const batch = createMessageBatch("edgecron-dispatch-1", [
      {
        id: "unknown-run",
        timestamp: new Date(),
        attempts: 1,
        body: {
          shard: 1,
          runs: [
            {
              run_id: "run_none",
              job_id: "job_none",
              tenant: "ten_none",
              scheduled_at: 0,
              attempt: 1,
              fence: 1,
              version: 1,
            },
          ],
        },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    // An unknown queue name would retry everything (src/index.ts): this one was consumed.
    expect(result.retryBatch.retry).toBe(false);
    expect(result.explicitAcks).toEqual(["unknown-run"]);
  });
});
