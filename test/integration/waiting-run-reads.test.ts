// A run waiting in its shard for room in the dispatch window (held back under a flood, re-sent
// after its lease expired, caught up after a crash) has no history record until it moves on: it
// is read from its live row, so GET /v1/runs/{id} never answers 404 for it and its job's runs list
// shows it waiting, not a state it has left.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { HISTORY_COLUMN_LIST } from "../../durable-objects/shard/history/records";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { holdBudgetFull } from "../helpers/backlog";
import { makeJobDue, stubFor, targetUrl } from "../helpers/scheduling";

disarmShardsAfterEach();

interface RunView {
  id: string;
  state: string;
}

async function liveRun(jobId: string): Promise<{ runId: string; inHistory: number }> {
  return runInDurableObject(stubFor(jobId), (_instance, state) => {
    const rows = state.storage.sql
      .exec<{ run_id: string; state: string }>("SELECT run_id, state FROM runs WHERE job_id = ?", jobId)
      .toArray();
    const run = rows[0] as { run_id: string };
    const inHistory = state.storage.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM run_history WHERE job_id = ?", jobId)
      .one().n;
    return { runId: run.run_id, inHistory };
  });
}

/**
 * A one-shot job of a new tenant whose instant has passed and fired while its shard's window is
 * full: its run waits SCHEDULED. Returns the window's release and a reader of the job's status.
 */
async function firedOneShotWaiting(label: string) {
  const tenant = await createTenantWithKey(label);
  const atMs = Date.now() + 1_000;
  const created = await api<{ id: string }>("POST", "/v1/jobs", {
    token: tenant.key,
    body: jobBody({
      schedule: { type: "once", at: new Date(atMs).toISOString() },
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

    // Its record says DISPATCHED (written while it was sent); its lease expired and it waits again.
    await runInDurableObject(stubFor(jobId), (_instance, state) => {
      const sql = state.storage.sql;
      const nowMs = Date.now();
      sql.exec(
        "UPDATE runs SET state = 'DISPATCHED', updated_at_ms = ? WHERE run_id = ?",
        nowMs - 1_000,
        runId,
      );
      sql.exec(
        `INSERT INTO run_history (${HISTORY_COLUMN_LIST}) SELECT ${HISTORY_COLUMN_LIST} FROM runs WHERE run_id = ?`,
        runId,
      );
      sql.exec("UPDATE runs SET state = 'SCHEDULED', updated_at_ms = ? WHERE run_id = ?", nowMs, runId);
    });
    const resent = await api<RunView>("GET", `/v1/runs/${runId}`, { token: tenant.key });
    expect(resent.body.state).toBe("SCHEDULED");
    const listed = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
    expect(listed.body.data.find((item) => item.id === runId)?.state).toBe("SCHEDULED");
    await release();
    await runInDurableObject(stubFor(jobId), (_instance, state) => {
      state.storage.sql.exec("DELETE FROM runs WHERE job_id = ?", jobId);
    });
  });

  it("keeps a one-shot job ACTIVE while its only run waits, and COMPLETED once that run has settled", async () => {
    const { tenant, jobId, release, status } = await firedOneShotWaiting("waiting-one-shot");
    // Fired: the shard holds no further instant, but the run still waits for the window.
    const waiting = await runInDurableObject(stubFor(jobId), (_instance, state) =>
      state.storage.sql
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

  it("writes the COMPLETED of a one-shot job whose run settled while the shard stays backlogged", async () => {
    const { tenant, jobId, release, status } = await firedOneShotWaiting("settled-in-backlog");
    expect(await status()).toBe("ACTIVE");
    // The run settles (as an outcome would settle it) while another run of the tenant stays due
    // and held back: every pass from here on is backlogged.
    const waitingRunId = "run_still_waiting";
    await runInDurableObject(stubFor(jobId), (_instance, state) => {
      const sql = state.storage.sql;
      const nowMs = Date.now();
      sql.exec(
        "UPDATE runs SET state = 'SUCCEEDED', due_at_ms = NULL, dirty = 1, updated_at_ms = ? WHERE job_id = ?",
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
    const waiting = await runInDurableObject(stubFor(jobId), (_instance, state) =>
      state.storage.sql
        .exec<{ state: string }>("SELECT state FROM runs WHERE run_id = ?", waitingRunId)
        .one(),
    );
    expect(waiting.state).toBe("SCHEDULED");
    await release();
    await runInDurableObject(stubFor(jobId), (_instance, state) => {
      state.storage.sql.exec("DELETE FROM runs WHERE run_id = ?", waitingRunId);
    });
  });
});
