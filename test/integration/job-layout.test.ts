// Moving a single-database deployment to the job databases: jobs stored the old way (in the
// control database's own `jobs` table, already on their shards) are served while they move,
// moved in batches by the admin route `npm run migrate:layout` calls, survive a crash between a
// copy and its delete, and nothing fires twice nor is re-pushed stale. Real D1s and shards.
import { createExecutionContext, env, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Job } from "../../src/client/types";
import { homeOf, jobStores } from "../../src/db/databases";
import { copyJobsHome } from "../../src/db/job-layout";
import { applyShardJobStatuses } from "../../src/db/job-outbox";
import { insertJobs, type JobRow, type StoredJob } from "../../src/db/jobs";
import worker from "../../src/index";
import { newId } from "../../src/service/ids";
import { pushJobs, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { ADMIN_TOKEN, api, BASE } from "../helpers/api";
import {
  makeJobDue,
  seedTenant,
  shardRows,
  spec,
  stubFor,
  TENANT_ID,
  targetCalls,
  targetUrl,
  WAIT,
} from "../helpers/scheduling";

disarmShardsAfterEach();

/** The deployment during the move: LEGACY_JOBS = "read" (the file's own env says "off"). */
const legacyEnv = { ...env, LEGACY_JOBS: "read" } as Env;

async function legacyApi<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const request = new Request<unknown, IncomingRequestCfProperties>(`${BASE}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      "edgecron-tenant": TENANT_ID,
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, legacyEnv, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as T };
}

/** A job as the single-database layout stored it: in env.DB, on its shard, confirmed. */
function oldJob(label: string, expr: string, version = 1): StoredJob {
  const nowMs = Date.now();
  const id = newId("job", nowMs);
  return {
    id,
    tenantId: TENANT_ID,
    spec: spec({
      name: label,
      schedule: { type: "cron", expr, timezone: "UTC" },
      target: { url: targetUrl(`/ok/${id}/v${version}`) },
    }),
    status: "ACTIVE",
    version,
    shard: shardOfJob(env, id),
    syncedVersion: 1,
    idempotencyKey: null,
    requestHash: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    endsAtMs: null,
  };
}

/** What the old deployment had pushed of a job: its shard holds this version. */
const snapshotOf = (job: StoredJob) => ({
  jobId: job.id,
  tenantId: job.tenantId,
  shard: job.shard,
  version: job.version,
  status: job.status,
  specJson: JSON.stringify(job.spec),
  createdAtMs: job.createdAtMs,
});

const legacyCount = async () =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs").first<{ n: number }>())?.n;
const legacyRows = async () => (await env.DB.prepare("SELECT * FROM jobs ORDER BY id").all<JobRow>()).results;

beforeAll(() => seedTenant());

describe("npm run migrate:layout (POST /v1/admin/job-layout/moves)", () => {
  it("moves every job home, resumes after a crash mid-move, and fires nothing twice", async () => {
    const jobs = Array.from({ length: 7 }, (_, i) => oldJob(`old-${i}`, "0 0 1 1 *"));
    // Made due by hand below; yearly, so no later instant of it falls inside the dispatch lead
    // window while the test runs (an every-minute job's next instant was sometimes sent ahead).
    const due = oldJob("due", "0 0 1 1 *");
    // An edit the old deployment wrote but no shard confirmed: the outbox must send version 2.
    const edited = { ...oldJob("edited", "0 0 1 1 *"), version: 2 };
    const all = [...jobs, due, edited];
    await pushJobs(env, [...jobs, due, { ...edited, version: 1 }].map(snapshotOf));
    await insertJobs(env.DB, all);

    // The due job fires once under the old layout.
    const instantMs = Date.now();
    await makeJobDue(due.id, instantMs);
    await runDurableObjectAlarm(stubFor(due.id));
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${due.id}/`)).toHaveLength(1), WAIT);

    // While LEGACY_JOBS is "read", the old rows are listed, and a job read by id moves home.
    const listed = await legacyApi<{ data: Job[] }>("GET", "/v1/jobs?limit=100");
    expect(listed.body.data.map((job) => job.id).sort()).toEqual(all.map((job) => job.id).sort());
    const touched = await legacyApi<Job>("GET", `/v1/jobs/${jobs[0]?.id}`);
    expect(touched.status).toBe(200);
    expect(await legacyCount()).toBe(8);

    // A crash between a copy and its delete: two rows copied, still in the legacy table; then a
    // shard's status write-back reaches one of them in the old table.
    const [crashedA, crashedB] = (await legacyRows()).slice(0, 2) as [JobRow, JobRow];
    await copyJobsHome(jobStores(legacyEnv), [crashedA, crashedB]);
    await applyShardJobStatuses(
      env.DB,
      [{ id: crashedA.id, status: "PAUSED", version: crashedA.version + 1 }],
      Date.now(),
    );

    // Resume: the command's loop, three rows a call, until nothing remains.
    const results: { moved: number; remaining: number }[] = [];
    for (let call = 0; call < 10; call++) {
      const res = await legacyApi<{ moved: number; remaining: number }>(
        "POST",
        "/v1/admin/job-layout/moves",
        { limit: 3 },
      );
      expect(res.status).toBe(200);
      results.push(res.body);
      if (res.body.remaining === 0) break;
    }
    expect(results.at(-1)).toEqual({ moved: 2, remaining: 0 });
    expect(results.map((result) => result.moved)).toEqual([3, 3, 2]);
    expect(await legacyCount()).toBe(0);

    // Every job once, in its home, as the old table last held it (the crashed row's newer state).
    for (const job of all) {
      const rows = await Promise.all(
        jobStores(env).homes.map((db) =>
          db.prepare("SELECT * FROM jobs WHERE id = ?").bind(job.id).first<JobRow>(),
        ),
      );
      expect(rows.filter((row) => row !== null)).toHaveLength(1);
      const home = await homeOf(jobStores(env), job.id)
        .prepare("SELECT * FROM jobs WHERE id = ?")
        .bind(job.id)
        .first<JobRow>();
      expect(home?.shard).toBe(job.shard);
      expect(home?.version).toBe(job.id === crashedA.id ? crashedA.version + 1 : job.version);
      expect(home?.status).toBe(job.id === crashedA.id ? "PAUSED" : "ACTIVE");
    }
    // After the move the deployment runs with LEGACY_JOBS = "off": every job is found and listed.
    const after = await api<{ data: Job[] }>("GET", "/v1/jobs?limit=100", {
      headers: { "edgecron-tenant": TENANT_ID },
    });
    expect(after.body.data.map((job) => job.id).sort()).toEqual(all.map((job) => job.id).sort());

    // The outbox re-sends only the unconfirmed edit, at its latest version; no job is re-pushed stale.
    const summary = await maintenanceStub().runNow();
    expect(summary.resynced).toBe(1);
    const versions = await Promise.all(
      all.map(
        async (job) =>
          (
            await shardRows<{ version: number }>(job.id, "SELECT version FROM jobs WHERE job_id = ?", job.id)
          )[0]?.version,
      ),
    );
    expect(versions).toEqual(all.map((job) => (job.id === edited.id ? 2 : 1)));

    // The due job's instant does not fire again after the move.
    await runDurableObjectAlarm(stubFor(due.id));
    // Its run, live or settled into its history record: one instant, once.
    const runs = await shardRows<{ scheduled_at_ms: number }>(
      due.id,
      "SELECT scheduled_at_ms FROM runs WHERE job_id = ?1 UNION SELECT scheduled_at_ms FROM run_history WHERE job_id = ?1",
      due.id,
    );
    expect(runs.map((run) => run.scheduled_at_ms)).toEqual([instantMs]);
    expect(await targetCalls(`/ok/${due.id}/`)).toHaveLength(1);
  });

  it("deletes a job still in the legacy table: moved home, then deleted, and its shard told", async () => {
    const job = oldJob("legacy-delete", "0 0 1 1 *");
    await pushJobs(env, [snapshotOf(job)]);
    await insertJobs(env.DB, [job]);
    const deleted = await legacyApi<Job>("DELETE", `/v1/jobs/${job.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: job.id, status: "DELETED", version: 2 });
    expect(await env.DB.prepare("SELECT id FROM jobs WHERE id = ?").bind(job.id).first()).toBeNull();
    const home = await homeOf(jobStores(env), job.id)
      .prepare("SELECT status, version FROM jobs WHERE id = ?")
      .bind(job.id)
      .first<JobRow>();
    expect(home).toMatchObject({ status: "DELETED", version: 2 });
    const onShard = await shardRows<{ status: string; version: number }>(
      job.id,
      "SELECT status, version FROM jobs WHERE job_id = ?",
      job.id,
    );
    expect(onShard).toEqual([{ status: "DELETED", version: 2 }]);
    // A second DELETE answers the job as it is, still version 2.
    const again = await legacyApi<Job>("DELETE", `/v1/jobs/${job.id}`);
    expect(again.body).toMatchObject({ status: "DELETED", version: 2 });
  });
});
