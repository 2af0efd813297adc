// The coalesced shard confirmations after a pause, resume or delete (src/db/synced-marks.ts):
// every confirmation reaches D1, those that arrive while a write runs share the next statement,
// and a failed write neither loses the later ones nor stops the isolate from writing again.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { jobCreateSchema } from "../../src/core/jobs/job-spec";
import type { JobStores } from "../../src/db/databases";
import { findJob, insertJobs, type StoredJob } from "../../src/db/jobs";
import { markJobsSyncedSoon, waitingSyncedMarks } from "../../src/db/synced-marks";

const NOW_MS = Date.parse("2026-12-01T00:00:00Z");
const TENANT = "ten_syncedmarks";
let sequence = 0;

/** The real job database, counting the statements prepared on it (and failing the first `failing`). */
function countedStores(failing = 0): { stores: JobStores; statements: () => number } {
  let prepared = 0;
  const db = env.DB_JOBS_0;
  const counted = new Proxy(db, {
    get(target, key) {
      if (key !== "prepare") return Reflect.get(target, key);
      return (sql: string) => {
        prepared += 1;
        if (prepared <= failing) throw new Error("D1 unavailable (test)");
        return target.prepare(sql);
      };
    },
  });
  return { stores: { homes: [counted], legacy: null }, statements: () => prepared };
}

async function newJob(version: number): Promise<StoredJob> {
  sequence += 1;
  const job: StoredJob = {
    id: `job_marks${sequence}${crypto.randomUUID().slice(0, 8)}`,
    tenantId: TENANT,
    spec: jobCreateSchema.parse({
      name: `marks-${sequence}`,
      schedule: { type: "cron", expr: "*/5 * * * *", timezone: "UTC" },
      target: { url: "https://example.com/hook" },
    }),
    status: "ACTIVE",
    version,
    shard: 0,
    syncedVersion: 0,
    idempotencyKey: null,
    requestHash: null,
    createdAtMs: NOW_MS,
    updatedAtMs: NOW_MS,
    endsAtMs: null,
  };
  await insertJobs(env.DB_JOBS_0, [job]);
  return job;
}

async function syncedVersionOf(job: StoredJob): Promise<number | undefined> {
  return (await findJob(env.DB_JOBS_0, job.tenantId, job.id))?.syncedVersion;
}

describe("markJobsSyncedSoon", () => {
  it("writes a lone confirmation before it resolves, in one statement", async () => {
    const { stores, statements } = countedStores();
    const job = await newJob(2);
    await markJobsSyncedSoon(stores, [{ id: job.id, version: 2 }]);
    expect(await syncedVersionOf(job)).toBe(2);
    expect(statements()).toBe(1);
  });

  it("writes the confirmations that arrive during a write together, right after it", async () => {
    const { stores, statements } = countedStores();
    const [first, second, third] = await Promise.all([newJob(1), newJob(3), newJob(5)]);
    if (!first || !second || !third) throw new Error("jobs not created");
    const writing = markJobsSyncedSoon(stores, [{ id: first.id, version: 1 }]);
    // These find the first write under way: they resolve at once, their marks still waiting.
    await markJobsSyncedSoon(stores, [{ id: second.id, version: 2 }]);
    await markJobsSyncedSoon(stores, [
      { id: second.id, version: 3 },
      { id: third.id, version: 5 },
    ]);
    expect(waitingSyncedMarks(stores)).toBe(2);
    await writing;
    expect(waitingSyncedMarks(stores)).toBe(0);
    expect(await syncedVersionOf(first)).toBe(1);
    // Two confirmations of one job wait as one: the higher version.
    expect(await syncedVersionOf(second)).toBe(3);
    expect(await syncedVersionOf(third)).toBe(5);
    expect(statements()).toBe(2);
  });

  it("after a failed write, the next confirmation is written (the failed one is left to the sweep)", async () => {
    const { stores } = countedStores(1);
    const [lost, next] = await Promise.all([newJob(1), newJob(1)]);
    if (!lost || !next) throw new Error("jobs not created");
    await expect(markJobsSyncedSoon(stores, [{ id: lost.id, version: 1 }])).rejects.toThrow(/unavailable/);
    await markJobsSyncedSoon(stores, [{ id: next.id, version: 1 }]);
    expect(await syncedVersionOf(next)).toBe(1);
    expect(await syncedVersionOf(lost)).toBe(0);
    expect(waitingSyncedMarks(stores)).toBe(0);
  });
});
