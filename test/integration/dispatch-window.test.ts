// The dispatch window in the shard: at most a window of runs is handed to the execution path and
// not yet reported; what is due beyond it waits in the shard, and each tenant with work due gets
// its share of what is sent, whether the other tenant's runs flood, hang or come back from
// expired leases.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { INITIAL_WINDOW_SIZE } from "../../src/core/load/dispatch-window";
import { slowTenantInFlightCap } from "../../src/core/runs/slow-calls";
import { markSlowCalls, pushJobs, shardCount, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  jobIdsOnOneShard,
  seedTenant,
  setFaultsOf,
  snapshot,
  spec,
  stubFor,
  targetUrl,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

const FLOODER = "ten_window_flooder";
const QUIET = "ten_window_quiet";

/** Hourly jobs on one shard: `floodCount` of the flooder and one of the quiet tenant (the last id). */
async function placeJobs(label: string, floodCount: number): Promise<{ ids: string[]; quietJob: string }> {
  await seedTenant(FLOODER);
  await seedTenant(QUIET);
  const ids = jobIdsOnOneShard(label, floodCount + 1);
  const quietJob = ids[ids.length - 1] as string;
  const jobSpec = spec({
    schedule: { type: "interval", every: "1h" },
    target: { url: targetUrl(`/ok/${label}`) },
  });
  const confirmed = await pushJobs(
    env,
    ids.map((jobId) => ({ ...snapshot(jobId, jobSpec), tenantId: jobId === quietJob ? QUIET : FLOODER })),
  );
  expect(confirmed.size).toBe(ids.length);
  return { ids, quietJob };
}

/** Makes the flooder's jobs due 5 s ago and the quiet job's 1 s ago (oldest first would starve it). */
async function makeDue(quietJob: string, tenantOfFlood = FLOODER): Promise<void> {
  const nowMs = Date.now();
  await inShardTables(stubFor(quietJob), (sql, _storage) => {
    sql.exec(
      "UPDATE jobs SET next_fire_ms = ?1, next_scheduled_ms = ?1 WHERE tenant_id = ?2",
      nowMs - 5_000,
      tenantOfFlood,
    );
    sql.exec(
      "UPDATE jobs SET next_fire_ms = ?1, next_scheduled_ms = ?1 WHERE job_id = ?2",
      nowMs - 1_000,
      quietJob,
    );
  });
}

/** Runs of the shard by tenant and state. */
async function statesOf(jobId: string): Promise<Map<string, number>> {
  const rows = await inShardTables(stubFor(jobId), (sql, _storage) =>
    sql
      .exec<{ tenant_id: string; state: string; n: number }>(
        "SELECT tenant_id, state, COUNT(*) AS n FROM runs GROUP BY tenant_id, state",
      )
      .toArray(),
  );
  return new Map(rows.map((row) => [`${row.tenant_id}:${row.state}`, row.n]));
}

/** Inserts `count` runs of the tenant's job in `runState` on the shard of `jobId`. */
async function insertRuns(
  jobId: string,
  runJobId: string,
  tenantId: string,
  runState: "RUNNING" | "DISPATCHED",
  count: number,
  dueAtMs: number,
): Promise<void> {
  const nowMs = Date.now();
  await inShardTables(stubFor(jobId), (sql, _storage) => {
    sql.exec(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       INSERT INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
         max_attempts, fence, job_version, due_at_ms, dispatch_count, events_json, created_at_ms,
         updated_at_ms, dirty)
       SELECT 'run_window_' || ?2 || '_' || ?3 || '_' || i, ?6, ?2, 'schedule', ?4 - i, ?4 - i,
         ?3, 1, 3, i, 1, ?5, 1, '[]', ?4, ?4, 0 FROM n`,
      count,
      tenantId,
      runState,
      nowMs,
      dueAtMs,
      runJobId,
    );
  });
}

async function cleanUp(jobId: string): Promise<void> {
  await setFaultsOf(jobId, {});
  // The flood's runs would otherwise keep the shard busy for the next test.
  await inShardTables(stubFor(jobId), (sql, _storage) => {
    sql.exec("DELETE FROM runs");
    sql.exec("DELETE FROM jobs");
  });
}

describe("the dispatch window", () => {
  it("bounds what one tenant's flood has out, and sends another tenant's run in the same tick", async () => {
    const { quietJob } = await placeJobs("window-flood", 400);
    await makeDue(quietJob);
    // Sends are "lost" (runs stay DISPATCHED, never claimed), so the window stays full.
    await setFaultsOf(quietJob, { dropDispatches: true });
    await runDurableObjectAlarm(stubFor(quietJob));
    let states = await statesOf(quietJob);
    expect(states.get(`${QUIET}:DISPATCHED`)).toBe(1);
    const sent = states.get(`${FLOODER}:DISPATCHED`) ?? 0;
    expect(sent).toBeGreaterThan(0);
    expect(sent + 1).toBeLessThanOrEqual(INITIAL_WINDOW_SIZE);
    expect(states.get(`${FLOODER}:SCHEDULED`)).toBe(400 - sent);

    // The window is full: the flood gets nothing more, and the quiet tenant's next run (a trigger
    // of its job now) is sent in the very next tick, its share of the window being free.
    const nowMs = Date.now();
    await inShardTables(stubFor(quietJob), (sql, _storage) => {
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?1, next_scheduled_ms = ?1 WHERE job_id = ?2",
        nowMs - 10,
        quietJob,
      );
    });
    await runDurableObjectAlarm(stubFor(quietJob));
    states = await statesOf(quietJob);
    expect(states.get(`${QUIET}:DISPATCHED`)).toBe(2);
    expect(states.get(`${FLOODER}:DISPATCHED`)).toBe(sent);
    await cleanUp(quietJob);
  });

  it("keeps a share for another tenant while one tenant's calls hang and fill the window", async () => {
    const { quietJob } = await placeJobs("window-hang", 50);
    // The flooder's calls hang: claimed, running, their leases far away; the window is full of them.
    await insertRuns(
      quietJob,
      "job_window_hanging",
      FLOODER,
      "RUNNING",
      INITIAL_WINDOW_SIZE,
      Date.now() + 3_600_000,
    );
    await makeDue(quietJob);
    await setFaultsOf(quietJob, { dropDispatches: true });
    await runDurableObjectAlarm(stubFor(quietJob));
    const states = await statesOf(quietJob);
    expect(states.get(`${QUIET}:DISPATCHED`)).toBe(1);
    // The flooder's due runs wait in the shard as its own backlog, none in front of the quiet run.
    expect(states.get(`${FLOODER}:DISPATCHED`)).toBeUndefined();
    expect(states.get(`${FLOODER}:SCHEDULED`)).toBe(50);
    await cleanUp(quietJob);
  });

  it("serves re-sends after expired leases by the same fair share", async () => {
    const { ids, quietJob } = await placeJobs("window-recover", 1);
    const floodJob = ids[0] as string;
    // A crash left 300 of the flooder's runs and one of the quiet tenant's sent and never claimed,
    // their leases expired: the recovery re-sends them.
    const expiredMs = Date.now() - 1_000;
    await insertRuns(quietJob, floodJob, FLOODER, "DISPATCHED", 300, expiredMs - 1_000);
    await insertRuns(quietJob, quietJob, QUIET, "DISPATCHED", 1, expiredMs);
    await setFaultsOf(quietJob, { dropDispatches: true });
    const resentByTenant = async () => {
      const rows = await inShardTables(stubFor(quietJob), (sql, _storage) =>
        sql
          .exec<{ tenant_id: string; n: number }>(
            "SELECT tenant_id, COUNT(*) AS n FROM runs WHERE state = 'DISPATCHED' AND dispatch_count = 2 GROUP BY tenant_id",
          )
          .toArray(),
      );
      return new Map(rows.map((row) => [row.tenant_id, row.n]));
    };
    // The quiet tenant's re-send goes in the first pass, not behind the flooder's 300.
    await runDurableObjectAlarm(stubFor(quietJob));
    expect((await resentByTenant()).get(QUIET)).toBe(1);
    // A few passes later the flooder's re-sends fill the window, and the rest wait in the shard
    // (SCHEDULED, or still DISPATCHED with the expired lease the next pass reads) for room in it.
    for (let pass = 0; pass < 4; pass += 1) await runDurableObjectAlarm(stubFor(quietJob));
    const resent = (await resentByTenant()).get(FLOODER) ?? 0;
    expect(resent).toBeGreaterThan(0);
    expect(resent + 1).toBeLessThanOrEqual(INITIAL_WINDOW_SIZE);
    const states = await statesOf(quietJob);
    expect(states.get(`${FLOODER}:SCHEDULED`)).toBeGreaterThan(0);
    expect((states.get(`${FLOODER}:SCHEDULED`) ?? 0) + (states.get(`${FLOODER}:DISPATCHED`) ?? 0)).toBe(300);
    await cleanUp(quietJob);
  });

  it("sends a tenant's higher-priority runs first when its share cannot send all", async () => {
    await seedTenant(FLOODER);
    const ids = jobIdsOnOneShard("window-priority", 300);
    const urgent = new Set(ids.slice(250));
    const confirmed = await pushJobs(
      env,
      ids.map((jobId) => ({
        ...snapshot(
          jobId,
          spec({
            schedule: { type: "interval", every: "1h" },
            target: { url: targetUrl("/ok/window-priority") },
            priority: urgent.has(jobId) ? 1 : 5,
          }),
        ),
        tenantId: FLOODER,
      })),
    );
    expect(confirmed.size).toBe(ids.length);
    // The urgent jobs' instants are the newest: oldest first would send the others.
    const nowMs = Date.now();
    await inShardTables(stubFor(ids[0] as string), (sql, _storage) => {
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?1, next_scheduled_ms = ?1 WHERE json_extract(spec_json, '$.priority') = 5",
        nowMs - 5_000,
      );
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?1, next_scheduled_ms = ?1 WHERE json_extract(spec_json, '$.priority') = 1",
        nowMs - 1_000,
      );
    });
    await setFaultsOf(ids[0] as string, { dropDispatches: true });
    // The first pass fires every job; the window sends 100 of the 300 runs.
    await runDurableObjectAlarm(stubFor(ids[0] as string));
    const sent = await inShardTables(stubFor(ids[0] as string), (sql, _storage) =>
      sql
        .exec<{ job_id: string }>("SELECT job_id FROM runs WHERE state = 'DISPATCHED'")
        .toArray()
        .map((row) => row.job_id),
    );
    expect(sent.length).toBeLessThanOrEqual(INITIAL_WINDOW_SIZE);
    expect(sent.filter((jobId) => urgent.has(jobId))).toHaveLength(50);
    await cleanUp(ids[0] as string);
  });

  it("keeps a tenant whose calls are slow to a few runs in flight, even alone, and not one whose calls are quick", async () => {
    const cap = slowTenantInFlightCap(shardCount(env));
    const { quietJob } = await placeJobs("window-slow", 100);
    // Five of the flooder's calls are running; the consumer said three of them are slow.
    await insertRuns(quietJob, "job_window_slow", FLOODER, "RUNNING", 5, Date.now() + 3_600_000);
    await inShardTables(stubFor(quietJob), (sql, _storage) => {
      sql.exec(
        "UPDATE runs SET slow_since_ms = ? WHERE job_id = 'job_window_slow' AND CAST(substr(run_id, -1) AS INTEGER) > 2",
        Date.now(),
      );
    });
    await makeDue(quietJob);
    await setFaultsOf(quietJob, { dropDispatches: true });
    await runDurableObjectAlarm(stubFor(quietJob));
    const states = await statesOf(quietJob);
    // Its runs in flight stay within the cap (the 5 running count); the rest wait in the shard.
    expect(states.get(`${FLOODER}:DISPATCHED`)).toBe(cap - 5);
    expect(states.get(`${FLOODER}:SCHEDULED`)).toBe(100 - (cap - 5));
    // The other tenant's run goes as always.
    expect(states.get(`${QUIET}:DISPATCHED`)).toBe(1);
    await cleanUp(quietJob);

    // The same five calls, none of them said to be slow: the fair share applies.
    const quick = await placeJobs("window-quick", 100);
    await insertRuns(quick.quietJob, "job_window_quick", FLOODER, "RUNNING", 5, Date.now() + 3_600_000);
    await makeDue(quick.quietJob);
    await setFaultsOf(quick.quietJob, { dropDispatches: true });
    await runDurableObjectAlarm(stubFor(quick.quietJob));
    const quickStates = await statesOf(quick.quietJob);
    expect(quickStates.get(`${FLOODER}:DISPATCHED`) ?? 0).toBeGreaterThan(cap);
    await cleanUp(quick.quietJob);
  });

  it("notes a call slow only while its run is RUNNING under the fence the consumer claimed", async () => {
    const { quietJob } = await placeJobs("window-slow-notice", 0);
    const shard = shardOfJob(env, quietJob);
    await insertRuns(quietJob, "job_window_notice", FLOODER, "RUNNING", 2, Date.now() + 3_600_000);
    await insertRuns(quietJob, "job_window_notice", FLOODER, "DISPATCHED", 1, Date.now() + 3_600_000);
    const runId = (runState: string, index: number) => `run_window_${FLOODER}_${runState}_${index}`;
    // Run 1 under its fence (1), run 2 under a stale fence, and the DISPATCHED run (not claimed).
    const marked = await markSlowCalls(env, shard, [
      { runId: runId("RUNNING", 1), fence: 1 },
      { runId: runId("RUNNING", 2), fence: 7 },
      { runId: runId("DISPATCHED", 1), fence: 1 },
    ]);
    expect(marked).toBe(1);
    const slowRuns = () =>
      inShardTables(stubFor(quietJob), (sql, _storage) =>
        sql
          .exec<{ run_id: string }>("SELECT run_id FROM runs WHERE slow_since_ms IS NOT NULL")
          .toArray()
          .map((row) => row.run_id),
      );
    expect(await slowRuns()).toEqual([runId("RUNNING", 1)]);
    await cleanUp(quietJob);
  });
});
