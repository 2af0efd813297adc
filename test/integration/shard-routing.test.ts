// A job stays on the shard it was placed on. D1 stores that shard; every push (an edit, the outbox
// sweep) goes there even when SHARD_COUNT has changed since and the id would hash elsewhere.
// Re-hashing would put a second copy of the job on another shard, firing on both.

import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { runMaintenancePass } from "../../durable-objects/maintenance/pass";
import { shardForJob } from "../../src/core/load/placement";
import { findJob } from "../../src/db/jobs";
import { syncJobs } from "../../src/service/job-writes";
import { shardOfJob } from "../../src/shard/client";
import { jobsDb } from "../helpers/job-databases";
import {
  placeJob,
  seedTenant,
  shardStub,
  snapshot,
  spec,
  TENANT_ID,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

/** A shard count under which the job's id hashes to a shard other than `storedShard`. */
function countThatMoves(jobId: string, storedShard: number): number {
  for (let count = 2; count < 64; count++) if (shardForJob(jobId, count) !== storedShard) return count;
  throw new Error(`no shard count moves ${jobId}`);
}

async function shardVersionOf(shard: number, jobId: string): Promise<number | null> {
  const rows = await inShardTables(shardStub(shard), (sql, _storage) =>
    sql.exec<{ version: number }>("SELECT version FROM jobs WHERE job_id = ?", jobId).toArray(),
  );
  return rows[0]?.version ?? null;
}

async function shardRunsOf(shard: number, jobId: string): Promise<number> {
  return inShardTables(
    shardStub(shard),
    (sql, _storage) =>
      sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM runs WHERE job_id = ?", jobId).one().n,
  );
}

/** An edit as the API writes it: a new version in D1, not yet confirmed by the shard. */
async function editInD1(jobId: string, version: number, path: string, atMs: number): Promise<void> {
  const edited = spec({
    schedule: { type: "once", at: new Date(atMs).toISOString() },
    target: { url: targetUrl(path) },
  });
  await jobsDb(jobId)
    .prepare("UPDATE jobs SET spec_json = ?, version = ?, updated_at_ms = ? WHERE id = ?")
    .bind(JSON.stringify(edited), version, Date.now(), jobId)
    .run();
}

async function syncedVersionOf(jobId: string): Promise<number | undefined> {
  const row = await jobsDb(jobId)
    .prepare("SELECT synced_version FROM jobs WHERE id = ?")
    .bind(jobId)
    .first<{ synced_version: number }>();
  return row?.synced_version;
}

beforeAll(() => seedTenant());

describe("routing by the job's stored shard", () => {
  it("sends edits and outbox re-sends to the stored shard after SHARD_COUNT changed, and fires there only", async () => {
    const jobId = uniqueJobId("routing");
    const firstSpec = spec({
      schedule: { type: "once", at: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}/v1`) },
    });
    const storedShard = shardOfJob(env, jobId);
    const nowMs = Date.now();
    await jobsDb(jobId)
      .prepare(
        `INSERT INTO jobs (id, tenant_id, name, spec_json, status, version, shard, synced_version, created_at_ms, updated_at_ms)
       VALUES (?, ?, 'routing', ?, 'ACTIVE', 1, ?, 1, ?, ?)`,
      )
      .bind(jobId, TENANT_ID, JSON.stringify(firstSpec), storedShard, nowMs, nowMs)
      .run();
    await placeJob(snapshot(jobId, firstSpec));
    // The deployment now has another shard count: the id would hash to `otherShard`.
    const shardCount = countThatMoves(jobId, storedShard);
    const otherShard = shardForJob(jobId, shardCount);
    const resized: Env = { ...env, SHARD_COUNT: String(shardCount) };

    // An edit through the API's push.
    await editInD1(jobId, 2, `/ok/${jobId}/v2`, Date.now() + 3_600_000);
    const edited = await findJob(jobsDb(jobId), TENANT_ID, jobId);
    await syncJobs(resized, [edited as NonNullable<typeof edited>]);
    expect(await shardVersionOf(storedShard, jobId)).toBe(2);
    expect(await syncedVersionOf(jobId)).toBe(2);

    // An edit whose push was lost, re-sent by the maintenance outbox sweep: due in a moment.
    await editInD1(jobId, 3, `/ok/${jobId}/v3`, Date.now() + 1_500);
    await runMaintenancePass(resized, Date.now());
    expect(await shardVersionOf(storedShard, jobId)).toBe(3);
    expect(await syncedVersionOf(jobId)).toBe(3);
    expect(await shardVersionOf(otherShard, jobId)).toBeNull();

    // It fires from its stored shard, at its latest version, once.
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${jobId}/v3`)).toHaveLength(1), WAIT);
    expect(await targetCalls(`/ok/${jobId}/v`)).toHaveLength(1);
    expect(await shardRunsOf(otherShard, jobId)).toBe(0);
    // Its history is written behind, and then neither shard has an alarm left armed.
    for (const shard of [storedShard, otherShard]) {
      await vi.waitFor(async () => {
        const alarmAtMs = await inShardTables(shardStub(shard), (_sql, storage) => storage.getAlarm());
        expect(alarmAtMs).toBeNull();
      }, WAIT);
    }
  });
});
