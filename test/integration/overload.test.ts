// A shard under overload: a run whose dispatch falls behind its instant raises a missed_run alert
// whatever holds it back, and control actions (pause, delete) issued while the shard holds a large
// due backlog are honoured at once.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { injectedFaults, injectFaults } from "../../src/service/fault-injection";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { holdBudgetFull } from "../helpers/backlog";
import { jobsDb } from "../helpers/job-databases";
import {
  currentRunsOf,
  dispatchButLose,
  makeJobDue,
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  stubFor,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

// Jobs here stay scheduled (hourly) and held-back shards re-arm: drain alarms after each test.
disarmShardsAfterEach();

interface AlertRow {
  run_id: string | null;
  resolved_at_ms: number | null;
  dedup_key: string;
  message: string;
}

function missedRunAlerts(jobId: string): Promise<AlertRow[]> {
  return env.DB.prepare(
    "SELECT run_id, dedup_key, message, resolved_at_ms FROM alerts WHERE job_id = ? AND kind = 'missed_run'",
  )
    .bind(jobId)
    .all<AlertRow>()
    .then((result) => result.results);
}

/** An hourly job alerting after 1 s: its timer is never overdue during a test, only its runs. */
async function placeHourlyJob(label: string): Promise<string> {
  await seedTenant();
  const jobId = uniqueJobId(label);
  const jobSpec = spec({
    schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
    target: { url: targetUrl(`/ok/${jobId}`) },
    alert_after: "1s",
  });
  await placeJob(snapshot(jobId, jobSpec));
  return jobId;
}

async function pauseJob(jobId: string): Promise<void> {
  const [row] = await shardRows<{ spec_json: string; version: number }>(
    jobId,
    "SELECT spec_json, version FROM jobs WHERE job_id = ?",
    jobId,
  );
  await placeJob({ ...snapshot(jobId, JSON.parse(row!.spec_json), row!.version + 1, "PAUSED") });
}

describe("a missed_run alert for a run whose dispatch fell behind", () => {
  it("is raised once when the unclaimed budget holds the run back past alert_after", async () => {
    const jobId = await placeHourlyJob("late-budget");
    const release = await holdBudgetFull(jobId);
    const dueAtMs = Date.now();
    await makeJobDue(jobId, dueAtMs);
    await runDurableObjectAlarm(stubFor(jobId));
    const [run] = await shardRows<{ run_id: string; state: string }>(
      jobId,
      "SELECT run_id, state FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(run?.state).toBe("SCHEDULED");

    // The job's timer moved on to the next hour: only the waiting run can tell it is late.
    await vi.waitFor(
      async () => {
        await maintenanceStub().runNow();
        expect(await missedRunAlerts(jobId)).toHaveLength(1);
      },
      { ...WAIT, interval: 250 },
    );
    await maintenanceStub().runNow();
    const alerts = await missedRunAlerts(jobId);
    expect(alerts).toEqual([
      expect.objectContaining({ run_id: run?.run_id, dedup_key: `missed:${jobId}:${dueAtMs}` }),
    ]);
    expect(alerts[0]?.message).toContain("waiting for dispatch");
    await release();
    await pauseJob(jobId);
  });

  it("is raised when the queue lost the run's message (dispatched, never claimed)", async () => {
    const jobId = await placeHourlyJob("late-lost");
    await dispatchButLose([jobId]);
    const [run] = await shardRows<{ run_id: string; state: string }>(
      jobId,
      "SELECT run_id, state FROM runs WHERE job_id = ?",
      jobId,
    );
    expect(run?.state).toBe("DISPATCHED");
    await vi.waitFor(
      async () => {
        await maintenanceStub().runNow();
        expect((await missedRunAlerts(jobId)).map((alert) => alert.run_id)).toEqual([run?.run_id]);
      },
      { ...WAIT, interval: 250 },
    );
    // Sent to the queue is not recovered: while the run shows dispatched (with its fence) and
    // waits unclaimed, the alert stays open.
    await runDurableObjectAlarm(stubFor(jobId));
    const [current] = await currentRunsOf<{ state: string; fence: number | null }>(jobId, ["state", "fence"]);
    expect(current).toMatchObject({ state: "DISPATCHED", fence: expect.any(Number) });
    await maintenanceStub().runNow();
    expect((await missedRunAlerts(jobId))[0]?.resolved_at_ms).toBeNull();
    await pauseJob(jobId);
  });
});

interface CreatedJob {
  id: string;
  shard: number;
  version: number;
}

async function createHourlyJob(key: string, label: string): Promise<CreatedJob> {
  const created = await api<CreatedJob>("POST", "/v1/jobs", {
    token: key,
    body: {
      name: label,
      schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${label}`) },
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

async function shardStatusOf(jobId: string): Promise<string | undefined> {
  const [row] = await shardRows<{ status: string }>(jobId, "SELECT status FROM jobs WHERE job_id = ?", jobId);
  return row?.status;
}

describe("a pause or a delete whose push the shard did not take", () => {
  it("reaches the shard within seconds, without waiting for the outbox sweep", async () => {
    const t = await createTenantWithKey("overload-retry");
    const job = await createHourlyJob(t.key, "overload-retry");
    // The next RPC to the shard fails, as an overloaded shard refuses one.
    await injectFaults(env, job.shard, { failClaims: 1 });
    expect((await api("DELETE", `/v1/jobs/${job.id}`, { token: t.key })).status).toBe(200);
    await vi.waitFor(async () => expect(await shardStatusOf(job.id)).toBe("DELETED"), WAIT);
    const row = await jobsDb(job.id)
      .prepare("SELECT version, synced_version FROM jobs WHERE id = ?")
      .bind(job.id)
      .first<{ version: number; synced_version: number }>();
    expect(row?.synced_version).toBe(row?.version);
  });

  it.each(["pause", "delete"] as const)("is re-sent when the %s is repeated", async (action) => {
    const t = await createTenantWithKey(`overload-repeat-${action}`);
    const job = await createHourlyJob(t.key, `overload-repeat-${action}`);
    const send = () =>
      action === "delete"
        ? api("DELETE", `/v1/jobs/${job.id}`, { token: t.key })
        : api("POST", `/v1/jobs/${job.id}/${action}`, { token: t.key });
    // The push, its tries inside the request and every background re-send fail (3 + 3): the
    // shard still runs the job. With 4, the second background re-send landed now and then.
    await injectFaults(env, job.shard, { failClaims: 6 });
    expect((await send()).status).toBe(200);
    await vi.waitFor(async () => expect((await injectedFaults(env, job.shard)).failClaims).toBe(0), WAIT);
    expect(await shardStatusOf(job.id)).toBe("ACTIVE");

    // The caller repeats the request (D1 already says it is done): the shard gets it now.
    expect((await send()).status).toBe(200);
    expect(await shardStatusOf(job.id)).toBe(action === "delete" ? "DELETED" : "PAUSED");
  });
});

const BACKLOG_JOBS = 20;
const BACKLOG_RUNS_PER_JOB = 300;
const UNCLAIMED = ["SCHEDULED", "ACQUIRED", "DISPATCHED"];

/** Puts `count` past instants of the job on its shard as due SCHEDULED runs: a dispatch backlog. */
async function seedDueBacklog(jobId: string, tenantId: string, count: number): Promise<void> {
  await inShardTables(stubFor(jobId), (sql, _storage) => {
    sql.exec(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1),
         instants(at_ms) AS (SELECT CAST(?2 AS INTEGER) - i * 1000 FROM n)
       INSERT OR IGNORE INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state,
         attempt, max_attempts, job_version, due_at_ms, events_json, created_at_ms, updated_at_ms)
       SELECT 'run_' || substr(?3, 5) || '_' || at_ms, ?3, ?4, 'schedule', at_ms, at_ms, 'SCHEDULED',
         1, 1, 1, at_ms, '[]', at_ms, at_ms FROM instants`,
      count,
      Date.now(),
      jobId,
      tenantId,
    );
  });
}

interface ShardRun {
  run_id: string;
  state: string;
  events_json: string;
}

function claimedAtMs(run: ShardRun): number | null {
  const events = JSON.parse(run.events_json) as { state: string; at_ms: number }[];
  return events.find((event) => event.state === "RUNNING")?.at_ms ?? null;
}

describe("a pause or a delete while the shard works through a large due backlog", () => {
  it("is honoured at once: none of the job's runs is claimed after the response", async () => {
    const t = await createTenantWithKey("overload-backlog");
    const prefix = `/ok/overload-backlog-${Date.now().toString(36)}`;
    const created = await api<{ results: { job: CreatedJob }[] }>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: {
        jobs: Array.from({ length: BACKLOG_JOBS }, (_, i) => ({
          name: `backlog-${i}`,
          schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
          target: { url: targetUrl(`${prefix}/${i}/`) },
        })),
      },
    });
    const jobs = created.body.results.map((result) => result.job);
    for (const job of jobs) await seedDueBacklog(job.id, t.tenantId, BACKLOG_RUNS_PER_JOB);
    const runsOf = (jobId: string) => currentRunsOf<ShardRun>(jobId, ["run_id", "state", "events_json"]);
    // Start the drain and wait until it is well under way.
    for (const job of jobs) await runDurableObjectAlarm(stubFor(job.id));
    await vi.waitFor(async () => expect((await targetCalls(prefix)).length).toBeGreaterThan(200), WAIT);

    const [deleted, paused] = [jobs.slice(0, 2), jobs.slice(2, 4)];
    const answeredAtMs = new Map<string, number>();
    await Promise.all([
      ...deleted.map((job) => api("DELETE", `/v1/jobs/${job.id}`, { token: t.key })),
      ...paused.map((job) => api("POST", `/v1/jobs/${job.id}/pause`, { token: t.key })),
    ]).then(() => {
      for (const job of [...deleted, ...paused]) answeredAtMs.set(job.id, Date.now());
    });
    // At the response, nothing of theirs is left waiting for a consumer.
    for (const job of [...deleted, ...paused]) {
      expect((await runsOf(job.id)).filter((run) => UNCLAIMED.includes(run.state))).toEqual([]);
    }

    // Everyone else's backlog drains: had the stopped jobs' runs survived, they would have gone too.
    await vi.waitFor(
      async () => {
        for (const job of jobs.slice(4)) {
          const left = (await runsOf(job.id)).filter((run) => run.state !== "SUCCEEDED");
          expect(left.length).toBe(0);
        }
      },
      { timeout: 120_000, interval: 500 },
    );
    for (const job of [...deleted, ...paused]) {
      const runs = await runsOf(job.id);
      const claimed = runs.filter((run) => claimedAtMs(run) !== null);
      for (const run of claimed) expect(claimedAtMs(run)).toBeLessThanOrEqual(answeredAtMs.get(job.id)!);
      // Every call its target got was a run claimed before the response.
      const index = jobs.indexOf(job);
      expect((await targetCalls(`${prefix}/${index}/`)).length).toBe(claimed.length);
      expect(runs.filter((run) => claimedAtMs(run) === null).every((run) => run.state === "CANCELLED")).toBe(
        true,
      );
    }
    await Promise.all(jobs.slice(2).map((job) => api("DELETE", `/v1/jobs/${job.id}`, { token: t.key })));
  }, 180_000);
});
