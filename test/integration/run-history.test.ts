// Run history in the shards: records written by the flush, reads routed by the run id, tenant-wide
// pages merged across shards with a stable cursor, aggregates kept by the shard, retention.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { historyStats } from "../../durable-objects/shard/history/reads";
import { pruneHistory, recordHistory } from "../../durable-objects/shard/history/records";
import { writeBehind } from "../../durable-objects/shard/write-behind";
import { runIdFor } from "../../src/core/run-id";
import { shardName, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { seedRun } from "../helpers/seed";

disarmShardsAfterEach();

interface Page {
  data: { id: string; job_id: string; state: string; created_at: string }[];
  next_cursor: string | null;
}

async function newJob(key: string): Promise<string> {
  return (await api<{ id: string }>("POST", "/v1/jobs", { token: key, body: jobBody() })).body.id;
}

/** Jobs of one tenant until they sit on at least `shards` different shards. */
async function jobsOnShards(key: string, shards: number): Promise<string[]> {
  const jobs: string[] = [];
  while (new Set(jobs.map((id) => shardOfJob(env, id))).size < shards) jobs.push(await newJob(key));
  return jobs;
}

async function allPages(key: string, query: string, from: string | null = null): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = from;
  do {
    const path: string = `/v1/runs?${query}${cursor === null ? "" : `&cursor=${cursor}`}`;
    const res = await api<Page>("GET", path, { token: key });
    expect(res.status).toBe(200);
    pages.push(res.body.data.map((run) => run.id));
    cursor = res.body.next_cursor;
  } while (cursor !== null);
  return pages;
}

describe("a tenant's runs across shards", () => {
  it("pages newest first through every shard with no run skipped or repeated, even as runs are added", async () => {
    const t = await createTenantWithKey();
    const jobs = await jobsOnShards(t.key, 3);
    const baseMs = Date.now() - 60_000;
    const expected: { id: string; createdAtMs: number }[] = [];
    for (let i = 0; i < 17; i++) {
      const jobId = jobs[i % jobs.length] as string;
      // Pairs share a creation instant: the run id breaks the tie, on every shard alike.
      const createdAtMs = baseMs + Math.floor(i / 2) * 1_000;
      const id = await seedRun({ jobId, tenantId: t.tenantId, scheduledAtMs: baseMs + i, createdAtMs });
      expected.push({ id, createdAtMs });
    }
    expected.sort((a, b) => b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : -1));

    const first = await api<Page>("GET", "/v1/runs?limit=4", { token: t.key });
    // Runs created after paging began are newer than every cursor: they never shift a page.
    await seedRun({ jobId: jobs[0] as string, tenantId: t.tenantId, createdAtMs: Date.now() });
    const rest = await allPages(t.key, "limit=4", first.body.next_cursor);
    const paged = [first.body.data.map((run) => run.id), ...rest];
    expect(paged.every((page) => page.length <= 4)).toBe(true);
    expect(paged.flat()).toEqual(expected.map((run) => run.id));
  });

  it("asks only the job's shard for one job's runs, and filters by state on every shard", async () => {
    const t = await createTenantWithKey();
    const [jobA, jobB] = await jobsOnShards(t.key, 2);
    const failedA = await seedRun({ jobId: jobA as string, tenantId: t.tenantId, state: "FAILED" });
    const failedB = await seedRun({ jobId: jobB as string, tenantId: t.tenantId, state: "FAILED" });
    await seedRun({ jobId: jobB as string, tenantId: t.tenantId });
    expect((await allPages(t.key, "state=FAILED")).flat().sort()).toEqual([failedA, failedB].sort());
    expect((await allPages(t.key, `job_id=${jobA}`)).flat()).toEqual([failedA]);
    const other = await createTenantWithKey();
    expect((await allPages(other.key, "limit=100")).flat()).toEqual([]);
    expect((await api("GET", `/v1/runs/${failedB}`, { token: other.key })).status).toBe(404);
  });
});

describe("a run read by its id", () => {
  it("finds the run on its job's shard, and answers 404 for ids no run can have", async () => {
    const t = await createTenantWithKey();
    const [jobId] = await jobsOnShards(t.key, 1);
    const runId = await seedRun({ jobId: jobId as string, tenantId: t.tenantId, state: "SUCCEEDED" });
    const res = await api<{ id: string; job_id: string; shard?: number }>("GET", `/v1/runs/${runId}`, {
      token: t.key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: runId, job_id: jobId });
    expect(res.body.shard).toBeUndefined();
    for (const id of ["run_nojob", `run_${(jobId as string).slice(4)}_notanumber`, `${runId}0`]) {
      expect((await api("GET", `/v1/runs/${id}`, { token: t.key })).status, id).toBe(404);
    }
  });
});

/** A fresh shard instance of its own (no jobs), for the store's unit behaviour. */
function probeShard(label: string) {
  return env.SHARD_SCHEDULER.getByName(`${shardName(900)}-${label}-${crypto.randomUUID().slice(0, 8)}`);
}

function insertRun(
  sql: SqlStorage,
  run: { jobId: string; atMs: number; state: string; updatedAtMs: number },
) {
  sql.exec(
    `INSERT INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt, max_attempts,
       fence, job_version, due_at_ms, events_json, created_at_ms, updated_at_ms)
     VALUES (?, ?, 'ten_probe', 'schedule', ?, ?, ?, 1, 3, 1, 1, NULL, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET state = excluded.state, events_json = excluded.events_json,
       updated_at_ms = excluded.updated_at_ms, dirty = 1`,
    runIdFor(run.jobId, run.atMs),
    run.jobId,
    run.atMs,
    run.atMs,
    run.state,
    JSON.stringify([{ state: run.state, at_ms: run.updatedAtMs, reason: "test", attempt: 1 }]),
    run.atMs,
    run.updatedAtMs,
  );
}

describe("the shard's history store", () => {
  it("never moves a record back to an older write, and keeps the state counts and failures in step", async () => {
    const nowMs = Date.now();
    await runInDurableObject(probeShard("upsert"), async (_instance, state) => {
      const sql = state.storage.sql;
      const runId = runIdFor("job_probe", nowMs);
      insertRun(sql, { jobId: "job_probe", atMs: nowMs, state: "RUNNING", updatedAtMs: nowMs + 2_000 });
      recordHistory(sql, [runId]);
      insertRun(sql, { jobId: "job_probe", atMs: nowMs, state: "DISPATCHED", updatedAtMs: nowMs + 1_000 });
      recordHistory(sql, [runId]);
      const stats = () =>
        historyStats(sql, { tenantId: "ten_probe", sinceMs: nowMs - 60_000, latenessLimit: 10 });
      expect(stats().byState).toEqual([{ state: "RUNNING", n: 1 }]);
      insertRun(sql, { jobId: "job_probe", atMs: nowMs, state: "FAILED", updatedAtMs: nowMs + 3_000 });
      recordHistory(sql, [runId]);
      expect(stats().byState).toEqual([{ state: "FAILED", n: 1 }]);
      expect(stats().minutes).toEqual([
        { minuteMs: Math.floor(nowMs / 60_000) * 60_000, triggers: 1, failures: 1 },
      ]);
      // The flush writes what is marked and clears the mark.
      insertRun(sql, { jobId: "job_probe", atMs: nowMs + 1, state: "SUCCEEDED", updatedAtMs: nowMs });
      await writeBehind(sql, env, 900);
      expect(stats().byState.sort((a, b) => a.state.localeCompare(b.state))).toEqual([
        { state: "FAILED", n: 1 },
        { state: "SUCCEEDED", n: 1 },
      ]);
      expect(sql.exec("SELECT COUNT(*) AS n FROM runs WHERE dirty = 1").one().n).toBe(0);
    });
  });

  it("prunes terminal records past the retention and keeps unfinished ones, counts included", async () => {
    const nowMs = Date.now();
    const oldMs = nowMs - 40 * 86_400_000;
    await runInDurableObject(probeShard("prune"), (_instance, state) => {
      const sql = state.storage.sql;
      const ids: string[] = [];
      for (const [i, runState] of ["SUCCEEDED", "DEAD_LETTERED", "RUNNING"].entries()) {
        insertRun(sql, { jobId: "job_prune", atMs: oldMs + i, state: runState, updatedAtMs: oldMs + i });
        ids.push(runIdFor("job_prune", oldMs + i));
      }
      insertRun(sql, { jobId: "job_prune", atMs: nowMs, state: "SUCCEEDED", updatedAtMs: nowMs });
      ids.push(runIdFor("job_prune", nowMs));
      recordHistory(sql, ids);
      expect(pruneHistory(sql, nowMs - 30 * 86_400_000, nowMs, 5_000)).toBe(2);
      const left = sql
        .exec<{ state: string }>("SELECT state FROM run_history ORDER BY scheduled_at_ms")
        .toArray();
      expect(left.map((row) => row.state)).toEqual(["RUNNING", "SUCCEEDED"]);
      const counts = historyStats(sql, { tenantId: null, sinceMs: nowMs, latenessLimit: 1 }).byState;
      expect(counts.sort((a, b) => a.state.localeCompare(b.state))).toEqual([
        { state: "RUNNING", n: 1 },
        { state: "SUCCEEDED", n: 1 },
      ]);
    });
  });

  it("stores a settled run in under 1,000 bytes (the size docs/SCALING.md plans with)", async () => {
    const records = 20_000;
    const bytesPerRecord = await runInDurableObject(probeShard("size"), (_instance, state) => {
      const sql = state.storage.sql;
      const before = sql.databaseSize;
      const baseMs = Date.parse("2026-12-01T00:00:00Z");
      // A typical run: scheduled, dispatched, claimed, succeeded, as the shard records the events.
      sql.exec(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO run_history (job_id, scheduled_at_ms, tenant_id, kind, state, attempt, max_attempts, fence,
           job_version, target_status, lateness_ms, duration_ms, events_json, created_at_ms, updated_at_ms)
         SELECT 'job_01M8RV8AYNJMYDPJ5G6B' || printf('%05d', i % 5000), ?2 + i * 60000, 'ten_01M8RV8AX77Z3NGTB4CGS34Y3K',
           'schedule', 'SUCCEEDED', 1, 3, i, 1, 200, 15, 120,
           json_array(
             json_object('state', 'SCHEDULED', 'at_ms', ?2 + i * 60000, 'reason', 'due', 'attempt', 1),
             json_object('state', 'DISPATCHED', 'at_ms', ?2 + i * 60000 + 15, 'reason', 'sent to the dispatch queue', 'attempt', 1, 'fence', i),
             json_object('state', 'RUNNING', 'at_ms', ?2 + i * 60000 + 40, 'reason', 'claimed by a consumer', 'attempt', 1, 'fence', i),
             json_object('state', 'SUCCEEDED', 'at_ms', ?2 + i * 60000 + 160, 'reason', 'target answered 200', 'attempt', 1, 'fence', i, 'target_status', 200)),
           ?2 + i * 60000, ?2 + i * 60000 + 160
         FROM n`,
        records,
        baseMs,
      );
      return (sql.databaseSize - before) / records;
    });
    console.log(`run history: ${Math.round(bytesPerRecord)} B per settled run (4 events, 3 indexes)`);
    expect(bytesPerRecord).toBeLessThan(1_000);
  });
});

describe("moving a deployment's history out of D1", () => {
  it("moves legacy D1 rows into their shards, keeps a newer shard record, and empties the table", async () => {
    const t = await createTenantWithKey();
    const [jobId] = await jobsOnShards(t.key, 1);
    const job = jobId as string;
    const shard = shardOfJob(env, job);
    const baseMs = Date.now() - 3_600_000;
    const legacy = (atMs: number, state: string, updatedAtMs: number) =>
      env.DB.prepare(
        `INSERT INTO runs (id, job_id, tenant_id, shard, kind, scheduled_at_ms, idempotency_key, state, attempt,
           max_attempts, fence, job_version, target_status, events_json, created_at_ms, updated_at_ms)
         VALUES (?, ?, ?, ?, 'schedule', ?, ?, ?, 1, 3, 1, 1, 200, ?, ?, ?)`,
      ).bind(
        runIdFor(job, atMs),
        job,
        t.tenantId,
        shard,
        atMs,
        `${job}:${new Date(atMs).toISOString()}`,
        state,
        JSON.stringify([{ state, at_ms: updatedAtMs, reason: "legacy", attempt: 1 }]),
        atMs,
        updatedAtMs,
      );
    // The shard already wrote a newer version of the second run than D1 holds.
    const newer = await seedRun({
      jobId: job,
      tenantId: t.tenantId,
      scheduledAtMs: baseMs + 1,
      state: "SUCCEEDED",
    });
    await env.DB.batch([legacy(baseMs, "FAILED", baseMs + 10), legacy(baseMs + 1, "RUNNING", baseMs + 1)]);

    const summary = await maintenanceStub().runNow();
    expect(summary.legacyHistoryMoved).toBe(2);
    const moved = await api<{ state: string; events: { reason: string }[] }>(
      "GET",
      `/v1/runs/${runIdFor(job, baseMs)}`,
      { token: t.key },
    );
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ state: "FAILED", events: [{ reason: "legacy" }] });
    expect((await api<{ state: string }>("GET", `/v1/runs/${newer}`, { token: t.key })).body.state).toBe(
      "SUCCEEDED",
    );
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM runs WHERE job_id = ?")
      .bind(job)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    // Again: nothing left to move, nothing changes.
    expect((await maintenanceStub().runNow()).legacyHistoryMoved).toBe(0);
  });
});
