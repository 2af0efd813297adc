// Claims and outcomes that name their job (durable-objects/shard/runs/claims.ts,
// attempt-outcomes.ts): every claim and report gets exactly the answer, lease, lateness and event
// the run's own state calls for, whatever job the message names.

import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { jobSpec, rememberDefinition } from "../../durable-objects/shard/jobs/job-specs";
import type { TargetOutcome } from "../../src/core/runs/outcome";
import { RUNNING_LEASE_MS } from "../../src/core/runs/run-leases";
import { shardOfJob } from "../../src/shard/client";
import type { ClaimRequest, ClaimResult, OutcomeReport, OutcomeResult } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  dispatchButLose,
  placeJob,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  stubFor,
  targetUrl,
  uniqueJobId,
} from "../helpers/scheduling";
import { inShardTables, withShardState } from "../helpers/shard-state";

disarmShardsAfterEach();

interface Row {
  run_id: string;
  job_id: string;
  state: string;
  fence: number;
  due_at_ms: number | null;
  lateness_ms: number | null;
  target_status: number | null;
  duration_ms: number | null;
  events_json: string;
}

/** A job an hour away with its run handed out at a fence and the message lost: ready to claim. */
async function dispatchedRun(label: string, extra: { timeout?: string } = {}) {
  const jobId = uniqueJobId(label);
  const jobSpec = spec({
    schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
    target: { url: targetUrl(`/ok/${jobId}`), method: "POST", body: { label } },
    ...extra,
  });
  await placeJob(snapshot(jobId, jobSpec));
  await dispatchButLose([jobId]);
  const [run] = await rowsOf(jobId);
  return { jobId, run: run as Row };
}

function rowsOf(jobId: string): Promise<Row[]> {
  return shardRows<Row>(
    jobId,
    `SELECT run_id, job_id, state, fence, due_at_ms, lateness_ms, target_status, duration_ms, events_json
     FROM runs WHERE job_id = ?`,
    jobId,
  );
}

async function claim(jobId: string, claims: ClaimRequest[]): Promise<ClaimResult[]> {
  return stubFor(jobId).claimRuns(shardOfJob(env, jobId), claims);
}

async function report(jobId: string, reports: OutcomeReport[]): Promise<OutcomeResult[]> {
  return stubFor(jobId).reportOutcomes(shardOfJob(env, jobId), reports);
}

const OK: TargetOutcome = { kind: "success", status: 200, durationMs: 12 };

/** A granted claim with what differs between two jobs (ids, instant, label, lateness) blanked. */
function normalized(result: ClaimResult | undefined, runId: string, jobId: string, label: string): unknown {
  if (!result?.ok) return result;
  const { latenessMs: _latenessMs, scheduledAtMs, ...rest } = result;
  const text = JSON.stringify(rest)
    .replaceAll(new Date(scheduledAtMs).toISOString(), "AT")
    .replaceAll(runId, "RUN")
    .replaceAll(jobId, "JOB")
    .replaceAll(label, "LABEL");
  return JSON.parse(text);
}

function lastEvent(row: Row): Record<string, unknown> {
  return (JSON.parse(row.events_json) as Record<string, unknown>[]).at(-1) as Record<string, unknown>;
}

describe("claims that name their job", () => {
  beforeAll(() => seedTenant());

  it("grant exactly what the reading path grants: the same answer, lease, lateness and event", async () => {
    const named = await dispatchedRun("fast-claim", { timeout: "20s" });
    const unnamed = await dispatchedRun("slow-claim", { timeout: "20s" });
    const beforeMs = Date.now();
    const [fast] = await claim(named.jobId, [
      { runId: named.run.run_id, fence: named.run.fence, jobId: named.jobId },
    ]);
    const [slow] = await claim(unnamed.jobId, [{ runId: unnamed.run.run_id, fence: unnamed.run.fence }]);
    const afterMs = Date.now();
    expect(fast).toMatchObject({
      ok: true,
      runId: named.run.run_id,
      jobId: named.jobId,
      attempt: 1,
      timeoutMs: 20_000,
    });
    expect(normalized(fast, named.run.run_id, named.jobId, "fast-claim")).toEqual(
      normalized(slow, unnamed.run.run_id, unnamed.jobId, "slow-claim"),
    );
    for (const { jobId } of [named, unnamed]) {
      const [row] = await rowsOf(jobId);
      expect(row!.state).toBe("RUNNING");
      // Short, whatever the timeout: the consumer renews it while it holds the run.
      expect(row!.due_at_ms).toBeGreaterThanOrEqual(beforeMs + RUNNING_LEASE_MS);
      expect(row!.due_at_ms).toBeLessThanOrEqual(afterMs + RUNNING_LEASE_MS);
      expect(row!.lateness_ms).not.toBeNull();
      expect(lastEvent(row!)).toMatchObject({
        state: "RUNNING",
        reason: "claimed by a consumer",
        fence: row!.fence,
      });
    }
  });

  it("grant a run named twice in one batch once", async () => {
    const { jobId, run } = await dispatchedRun("twice");
    const request = { runId: run.run_id, fence: run.fence, jobId };
    const results = await claim(jobId, [request, request]);
    expect(results[0]).toMatchObject({ ok: true, runId: run.run_id });
    expect(results[1]).toEqual({ ok: false, runId: run.run_id, code: "duplicate" });
  });

  it("refuse a stale fence and leave the run as it was", async () => {
    const { jobId, run } = await dispatchedRun("stale-fence");
    const results = await claim(jobId, [{ runId: run.run_id, fence: run.fence + 1, jobId }]);
    expect(results).toEqual([{ ok: false, runId: run.run_id, code: "stale_fence" }]);
    expect((await rowsOf(jobId))[0]!.state).toBe(run.state);
  });

  it("refuse a run stamped with an older job version, and cancel it", async () => {
    const { jobId, run } = await dispatchedRun("stale-version");
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("UPDATE jobs SET version = 2 WHERE job_id = ?", jobId);
    });
    const results = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(results).toEqual([{ ok: false, runId: run.run_id, code: "stale_version" }]);
    expect((await rowsOf(jobId))[0]!.state).toBe("CANCELLED");
  });

  it("refuse a run whose job is paused or deleted, and cancel it", async () => {
    for (const [status, code] of [
      ["PAUSED", "job_paused"],
      ["DELETED", "job_deleted"],
    ] as const) {
      const { jobId, run } = await dispatchedRun(`job-${status}`);
      await inShardTables(stubFor(jobId), (sql, _storage) => {
        sql.exec("UPDATE jobs SET status = ? WHERE job_id = ?", status, jobId);
      });
      const results = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId }]);
      expect(results).toEqual([{ ok: false, runId: run.run_id, code }]);
      expect((await rowsOf(jobId))[0]!.state).toBe("CANCELLED");
    }
  });

  it("refuse a run whose instant has not come", async () => {
    const { jobId, run } = await dispatchedRun("not-due");
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("UPDATE runs SET fire_at_ms = ? WHERE run_id = ?", Date.now() + 60_000, run.run_id);
    });
    const results = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(results).toEqual([{ ok: false, runId: run.run_id, code: "not_due" }]);
    expect((await rowsOf(jobId))[0]!.state).toBe(run.state);
  });

  it("decide by the run's own job when the claim names another", async () => {
    const { jobId, run } = await dispatchedRun("wrong-job");
    const other = await dispatchedRun("other-job");
    const results = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId: other.jobId }]);
    expect(results[0]).toMatchObject({ ok: true, runId: run.run_id, jobId });
  });
});

describe("outcomes that name their job", () => {
  beforeAll(() => seedTenant());

  async function runningRun(label: string) {
    const dispatched = await dispatchedRun(label);
    const { jobId, run } = dispatched;
    const [granted] = await claim(jobId, [{ runId: run.run_id, fence: run.fence, jobId }]);
    expect(granted).toMatchObject({ ok: true });
    return dispatched;
  }

  it("record a plain success as the reading path does: state, status, duration and event", async () => {
    const { jobId, run } = await runningRun("fast-success");
    const results = await report(jobId, [{ runId: run.run_id, fence: run.fence, outcome: OK, jobId }]);
    expect(results).toEqual([{ ok: true, runId: run.run_id, state: "SUCCEEDED" }]);
    // Settled: the row left the wheel's table, and its history record reads the success.
    expect(await rowsOf(jobId)).toEqual([]);
    const [row] = await shardRows<Row>(
      jobId,
      "SELECT state, fence, target_status, duration_ms, events_json FROM run_history WHERE job_id = ?",
      jobId,
    );
    expect(row).toMatchObject({ state: "SUCCEEDED", fence: run.fence, target_status: 200, duration_ms: 12 });
    expect(lastEvent(row!)).toMatchObject({
      state: "SUCCEEDED",
      reason: "target answered 200",
      fence: run.fence,
      target_status: 200,
    });
  });

  it("record a success reported twice in one batch once", async () => {
    const { jobId, run } = await runningRun("success-twice");
    const one = { runId: run.run_id, fence: run.fence, outcome: OK, jobId };
    const results = await report(jobId, [one, one]);
    expect(results).toEqual([
      { ok: true, runId: run.run_id, state: "SUCCEEDED" },
      { ok: false, runId: run.run_id, code: "not_running" },
    ]);
  });

  it("refuse a success at a stale fence and leave the run running", async () => {
    const { jobId, run } = await runningRun("success-stale");
    const results = await report(jobId, [{ runId: run.run_id, fence: run.fence - 1, outcome: OK, jobId }]);
    expect(results).toEqual([{ ok: false, runId: run.run_id, code: "stale_fence" }]);
    expect((await rowsOf(jobId))[0]!.state).toBe("RUNNING");
  });

  it("end a job's failure streak on success (the reading path), as before", async () => {
    const { jobId, run } = await runningRun("streak");
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("UPDATE jobs SET consecutive_failures = 2 WHERE job_id = ?", jobId);
    });
    const results = await report(jobId, [{ runId: run.run_id, fence: run.fence, outcome: OK, jobId }]);
    expect(results).toEqual([{ ok: true, runId: run.run_id, state: "SUCCEEDED" }]);
    const [job] = await shardRows<{ consecutive_failures: number }>(
      jobId,
      "SELECT consecutive_failures FROM jobs WHERE job_id = ?",
      jobId,
    );
    expect(job!.consecutive_failures).toBe(0);
  });
});

describe("job specs", () => {
  beforeAll(() => seedTenant());

  it("give a job's spec whether or not it was cached when read, and after it left the cache", async () => {
    const { jobId } = await dispatchedRun("heads");
    const target = await withShardState(stubFor(jobId), (state) => {
      const job = state.jobs.get(jobId)!;
      // Push the job's version out of the spec cache (it keeps the 20,000 versions used last).
      for (let index = 0; index <= 20_000; index++) {
        rememberDefinition({
          job_id: `job_evict_${index}`,
          tenant_id: "ten_evict",
          version: 1,
          status: "ACTIVE",
          spec_json: "{}",
          created_at_ms: 0,
          calendars_json: "[]",
          calendars_revision: 0,
        });
      }
      return jobSpec(state, job).target;
    });
    expect(target).toMatchObject({
      url: targetUrl(`/ok/${jobId}`),
      method: "POST",
      body: { label: "heads" },
    });
  });
});
