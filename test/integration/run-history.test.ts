// Run history in the shards: records written by the flush, reads routed by the run id, tenant-wide
// pages merged across shards with a stable cursor, aggregates kept by the shard, retention.

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pruneHistory } from "../../durable-objects/shard/history/prune";
import { historyStats } from "../../durable-objects/shard/history/reads";
import { findRecord } from "../../durable-objects/shard/history/run-lookups";
import { createdRun, type Run } from "../../durable-objects/shard/records/run";
import { runIdFor } from "../../src/core/runs/run-id";
import type { RunState } from "../../src/core/runs/run-state";
import { shardName, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { seedRun } from "../helpers/seed";
import { withShardState } from "../helpers/shard-state";

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
    const expected: { id: string; atMs: number }[] = [];
    for (let i = 0; i < 17; i++) {
      const jobId = jobs[i % jobs.length] as string;
      // Pairs of jobs share an instant: the run id breaks the tie, on every shard alike.
      const atMs = baseMs + Math.floor(i / 2) * 1_000;
      const id = await seedRun({ jobId, tenantId: t.tenantId, scheduledAtMs: atMs, createdAtMs: atMs });
      expected.push({ id, atMs });
    }
    expected.sort((a, b) => b.atMs - a.atMs || (a.id < b.id ? 1 : -1));

    const first = await api<Page>("GET", "/v1/runs?limit=4", { token: t.key });
    // Runs of instants after paging began are newer than every cursor: they never shift a page.
    await seedRun({
      jobId: jobs[0] as string,
      tenantId: t.tenantId,
      scheduledAtMs: Date.now(),
      createdAtMs: Date.now(),
    });
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

/** A run of `jobId` at `atMs`, in `state` since `updatedAtMs`, as the shard would hold it. */
function runIn(jobId: string, atMs: number, state: RunState, updatedAtMs: number): Run {
  const run = createdRun({
    jobId,
    tenantId: "ten_probe",
    kind: "schedule",
    scheduledAtMs: atMs,
    fireAtMs: atMs,
    maxAttempts: 3,
    jobVersion: 1,
    state: "SCHEDULED",
    dueAtMs: null,
    waiting: null,
    reason: "due",
    nowMs: atMs,
  });
  run.state = state;
  run.fence = 1;
  run.updated_at_ms = updatedAtMs;
  run.events.push({ state, at_ms: updatedAtMs, reason: "test", attempt: 1, fence: 1 });
  return run;
}

describe("the shard's history store", () => {
  it("reads a run written twice as its newest record, and keeps the state counts in step", async () => {
    const nowMs = Date.now();
    await withShardState(probeShard("newest"), (state) => {
      const dead = runIn("job_probe", nowMs, "DEAD_LETTERED", nowMs + 1_000);
      state.addRun(dead);
      state.settleRun(dead);
      state.commit(nowMs + 1_000);
      const stats = () =>
        historyStats(state, { tenantId: "ten_probe", sinceMs: nowMs - 60_000, latenessLimit: 10 });
      expect(stats().byState).toEqual([{ state: "DEAD_LETTERED", n: 1 }]);
      expect(stats().minutes).toEqual([
        { minuteMs: Math.floor(nowMs / 60_000) * 60_000, triggers: 1, failures: 1 },
      ]);
      // An operator's retry revives it; it succeeds and settles into a later page.
      state.uncount("ten_probe", "DEAD_LETTERED", 1);
      const retried = runIn("job_probe", nowMs, "SUCCEEDED", nowMs + 3_000);
      state.addRun(retried);
      state.settleRun(retried);
      state.commit(nowMs + 3_000);
      expect(findRecord(state, "ten_probe", "job_probe", nowMs)?.state).toBe("SUCCEEDED");
      expect(stats().byState).toEqual([{ state: "SUCCEEDED", n: 1 }]);
    });
  });

  it("prunes pages past the retention, counts included, and keeps runs still live", async () => {
    const nowMs = Date.now();
    const oldMs = nowMs - 40 * 86_400_000;
    await withShardState(probeShard("prune"), (state) => {
      for (const [i, runState] of (["SUCCEEDED", "DEAD_LETTERED"] as const).entries()) {
        const run = runIn("job_prune", oldMs + i, runState, oldMs + i);
        state.addRun(run);
        state.settleRun(run);
      }
      state.commit(oldMs + 10);
      state.addRun(runIn("job_prune", oldMs + 2, "RUNNING", oldMs + 2));
      const recent = runIn("job_prune", nowMs, "SUCCEEDED", nowMs);
      state.addRun(recent);
      state.settleRun(recent);
      state.commit(nowMs);
      // Two pages (one per outcome) of old instants written long ago go; the recent page stays.
      expect(pruneHistory(state, nowMs - 30 * 86_400_000, nowMs, 5_000)).toBe(2);
      const left = state.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM history_pages WHERE tenant_id = 'ten_probe'")
        .one().n;
      expect(left).toBe(1);
      const counts = historyStats(state, { tenantId: null, sinceMs: nowMs, latenessLimit: 1 }).byState;
      expect(counts.sort((a, b) => a.state.localeCompare(b.state))).toEqual([
        { state: "RUNNING", n: 1 },
        { state: "SUCCEEDED", n: 1 },
      ]);
    });
  });

  it("stores a settled run in under 1,000 bytes (the size docs/SCALING.md plans with)", async () => {
    const records = 20_000;
    const bytesPerRecord = await withShardState(probeShard("size"), (state) => {
      const before = state.sql.databaseSize;
      const baseMs = Date.parse("2026-12-01T00:00:00Z");
      // A typical run: scheduled, dispatched, claimed, succeeded, settled 50 to a commit.
      for (let i = 0; i < records; i++) {
        const atMs = baseMs + i * 60_000;
        const run = runIn(
          `job_01M8RV8AYNJMYDPJ5G6B${String(i % 5_000).padStart(5, "0")}`,
          atMs,
          "SUCCEEDED",
          atMs + 160,
        );
        run.events.splice(
          1,
          0,
          {
            state: "DISPATCHED",
            at_ms: atMs + 15,
            reason: "sent to the dispatch queue",
            attempt: 1,
            fence: i,
          },
          { state: "RUNNING", at_ms: atMs + 40, reason: "claimed by a consumer", attempt: 1, fence: i },
        );
        run.target_status = 200;
        run.lateness_ms = 15;
        run.duration_ms = 120;
        state.addRun(run);
        state.settleRun(run);
        if (i % 50 === 49) state.commit(atMs + 200);
      }
      state.commit();
      return (state.sql.databaseSize - before) / records;
    });
    console.log(`run history: ${Math.round(bytesPerRecord)} B per settled run (4 events, in pages)`);
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
