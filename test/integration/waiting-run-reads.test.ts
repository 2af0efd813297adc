// A run waiting in its shard for room in the dispatch window (held back under a flood, re-sent
// after its lease expired, caught up after a crash) has no history record until it settles: it
// is read from its live state, so GET /v1/runs/{id} never answers 404 for it and its job's runs
// list shows it waiting, not a state it has left.

import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { holdBudgetFull } from "../helpers/backlog";
import { makeJobDue, stubFor, targetUrl } from "../helpers/scheduling";
import { seedRun } from "../helpers/seed";
import { inShardTables, liveRunsOf } from "../helpers/shard-state";

disarmShardsAfterEach();

interface RunView {
  id: string;
  state: string;
}

async function liveRun(jobId: string): Promise<{ runId: string; inHistory: number }> {
  return inShardTables(stubFor(jobId), (sql, _storage) => {
    const rows = sql
      .exec<{ run_id: string; state: string }>("SELECT run_id, state FROM runs WHERE job_id = ?", jobId)
      .toArray();
    const run = rows[0] as { run_id: string };
    const inHistory = sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM run_history WHERE job_id = ?", jobId)
      .one().n;
    return { runId: run.run_id, inHistory };
  });
}

/**
 * A one-shot job of a new tenant whose instant has passed and fired while its shard's window is
 * full: its run waits SCHEDULED. Returns the window's release and a reader of the job's status.
 */
async function firedOneShotWaiting(label: string, schedule: "once" | "max_runs" = "once") {
  const tenant = await createTenantWithKey(label);
  const atMs = Date.now() + 1_000;
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: tenant.key,
    body: jobBody({
      // max_runs: a job the shard completes (its spec alone cannot tell when): COMPLETED is written.
      ...(schedule === "once"
        ? { schedule: { type: "once", at: new Date(atMs).toISOString() } }
        : {
            schedule: { type: "interval", every: "1h", anchor: new Date(atMs).toISOString() },
            max_runs: 1,
          }),
      target: { url: targetUrl(`/ok/${label}`) },
      // Not sent ahead (only overlap "allow" is): its run is created at its instant, after the
      // window below is full, not by a pass that may run before it fills.
      overlap: "skip",
    }),
  });
  expect(created.status).toBe(201);
  const jobId = created.body.id;
  const release = await holdBudgetFull(jobId, tenant.tenantId);
  // Its instant passes (a clock reading, not a guess at how long anything takes).
  await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(atMs), { timeout: 5_000, interval: 50 });
  await runDurableObjectAlarm(stubFor(jobId));
  const status = async () =>
    (await api<{ status: string }>("GET", `/v1/jobs/${jobId}`, { token: tenant.key })).body.status;
  return { tenant, jobId, release, status };
}

describe("a run waiting for the dispatch window", () => {
  it("is read as it is now: GET /v1/runs/{id} and the job's runs show it SCHEDULED", async () => {
    const tenant = await createTenantWithKey("waiting-reads");
    const created = await api<{ id: string }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: jobBody({
        schedule: { type: "interval", every: "1h" },
        target: { url: targetUrl("/ok/waiting") },
      }),
    });
    expect(created.status).toBe(201);
    const jobId = created.body.id;
    const release = await holdBudgetFull(jobId, tenant.tenantId);
    await makeJobDue(jobId, Date.now() - 2_000);
    await runDurableObjectAlarm(stubFor(jobId));
    const { runId, inHistory } = await liveRun(jobId);
    // The premise: the run waits and its record is not written yet.
    expect(inHistory).toBe(0);

    const run = await api<RunView>("GET", `/v1/runs/${runId}`, { token: tenant.key });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ id: runId, state: "SCHEDULED" });
    const runs = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
    // Every run of the job waits (the instant made due, and the interval's first one).
    expect(runs.body.data.map((item) => item.id)).toContain(runId);
    expect(new Set(runs.body.data.map((item) => item.state))).toEqual(new Set(["SCHEDULED"]));

    // An older record of it says DISPATCHED (as history kept before pages could hold one); the
    // live run, waiting again, is what it is now.
    const [live] = (await liveRunsOf(jobId)).filter((item) => item.run_id === runId);
    await seedRun({
      jobId,
      tenantId: tenant.tenantId,
      scheduledAtMs: live!.scheduled_at_ms,
      state: "DISPATCHED",
      createdAtMs: Date.now() - 1_000,
    });
    const resent = await api<RunView>("GET", `/v1/runs/${runId}`, { token: tenant.key });
    expect(resent.body.state).toBe("SCHEDULED");
    const listed = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
    expect(listed.body.data.find((item) => item.id === runId)?.state).toBe("SCHEDULED");
    await release();
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("DELETE FROM runs WHERE job_id = ?", jobId);
    });
  });

  it("reads a one-shot job COMPLETED once its instant passed, its run listed waiting, then SUCCEEDED", async () => {
    const { tenant, jobId, release, status } = await firedOneShotWaiting("one-shot-reads");
    // D1 says so from the spec alone (src/core/jobs/job-end.ts): the shard writes nothing back for it.
    expect(await status()).toBe("COMPLETED");
    const waiting = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
    expect(waiting.body.data.map((run) => run.state)).toEqual(["SCHEDULED"]);
    await release();
    await vi.waitFor(
      async () => {
        await runDurableObjectAlarm(stubFor(jobId));
        const runs = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
        expect(runs.body.data.map((run) => run.state)).toEqual(["SUCCEEDED"]);
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await status()).toBe("COMPLETED");
  });

  it("keeps a job the shard completes ACTIVE while its last run waits, and COMPLETED once that run has settled", async () => {
    const { tenant, jobId, release, status } = await firedOneShotWaiting("waiting-max-runs", "max_runs");
    // Fired: the shard holds no further instant, but the run still waits for the window.
    const waiting = await inShardTables(stubFor(jobId), (sql, _storage) =>
      sql
        .exec<{ state: string; status: string }>(
          "SELECT runs.state, jobs.status FROM runs JOIN jobs USING (job_id) WHERE job_id = ?",
          jobId,
        )
        .toArray(),
    );
    expect(waiting).toEqual([{ state: "SCHEDULED", status: "COMPLETED" }]);
    await runDurableObjectAlarm(stubFor(jobId));
    expect(await status()).toBe("ACTIVE");

    await release();
    await vi.waitFor(
      async () => {
        await runDurableObjectAlarm(stubFor(jobId));
        expect(await status()).toBe("COMPLETED");
      },
      { timeout: 20_000, interval: 200 },
    );
    const runs = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
    expect(runs.body.data.map((run) => run.state)).toEqual(["SUCCEEDED"]);
  });

  it("writes the COMPLETED of a job whose last run settled while the shard stays backlogged", async () => {
    const { tenant, jobId, release, status } = await firedOneShotWaiting("settled-in-backlog", "max_runs");
    expect(await status()).toBe("ACTIVE");
    // The run settles (as an outcome would settle it) while another run of the tenant stays due
    // and held back: every pass from here on is backlogged.
    const waitingRunId = "run_still_waiting";
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      const nowMs = Date.now();
      sql.exec(
        "UPDATE runs SET state = 'SUCCEEDED', due_at_ms = NULL, updated_at_ms = ? WHERE job_id = ?",
        nowMs,
        jobId,
      );
      sql.exec(
        `INSERT INTO runs (run_id, job_id, tenant_id, kind, scheduled_at_ms, fire_at_ms, state, attempt,
           max_attempts, job_version, due_at_ms, dispatch_count, events_json, created_at_ms, updated_at_ms, dirty)
         VALUES (?, 'job_still_waiting', ?, 'schedule', ?, ?, 'SCHEDULED', 1, 1, 1, ?, 0, '[]', ?, ?, 0)`,
        waitingRunId,
        tenant.tenantId,
        nowMs,
        nowMs,
        nowMs,
        nowMs,
        nowMs,
      );
    });
    await vi.waitFor(
      async () => {
        await runDurableObjectAlarm(stubFor(jobId));
        expect(await status()).toBe("COMPLETED");
      },
      { timeout: 10_000, interval: 200 },
    );
    // The premise held: the other run was still waiting for the window.
    const waiting = await inShardTables(stubFor(jobId), (sql, _storage) =>
      sql.exec<{ state: string }>("SELECT state FROM runs WHERE run_id = ?", waitingRunId).one(),
    );
    expect(waiting.state).toBe("SCHEDULED");
    await release();
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("DELETE FROM runs WHERE run_id = ?", waitingRunId);
    });
  });
});
