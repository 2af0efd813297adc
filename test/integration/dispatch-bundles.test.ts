// The throughput path's own rules: runs travel bundled per queue message, a push applies many
// jobs in one statement, and a shard defers history while it is backlogged.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { RUNS_PER_MESSAGE, runsPerMessage } from "../../durable-objects/shard/dispatch/pass-settings";
import { bundle, sendGroups } from "../../durable-objects/shard/dispatch/queue-hand-off";
import { pushJobs } from "../../src/shard/client";
import type { DispatchRun } from "../../src/shard/protocol";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  jobIdsOnOneShard,
  seedTenant,
  shardRows,
  snapshot,
  spec,
  stubFor,
  TENANT_ID,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

function sentRun(index: number, padding = ""): DispatchRun {
  return {
    run_id: `run_bundle${padding}_${index}`,
    job_id: `job_bundle${padding}_${index}`,
    tenant_id: TENANT_ID,
    scheduled_at_ms: 1_800_000_000_000,
    attempt: 1,
    fence: index + 1,
    job_version: 1,
  };
}

beforeAll(() => seedTenant());

describe("bundled dispatch", () => {
  it("packs a shard's runs into messages of at most RUNS_PER_MESSAGE, in order", () => {
    const runs = Array.from({ length: 2 * RUNS_PER_MESSAGE + 7 }, (_, i) => sentRun(i));
    const messages = bundle(3, runs);
    expect(messages.map((message) => message.runs.length)).toEqual([RUNS_PER_MESSAGE, RUNS_PER_MESSAGE, 7]);
    expect(messages.every((message) => message.shard === 3)).toBe(true);
    expect(messages.flatMap((message) => message.runs)).toEqual(runs);
  });

  it("takes the bundle size from DISPATCH_RUNS_PER_MESSAGE, within 1..100", () => {
    expect(runsPerMessage("12")).toBe(12);
    expect(runsPerMessage("500")).toBe(100);
    for (const bad of [undefined, "", "0", "-3", "2.5", "many"])
      expect(runsPerMessage(bad)).toBe(RUNS_PER_MESSAGE);
    const runs = Array.from({ length: 25 }, (_, i) => sentRun(i));
    expect(bundle(0, runs, runsPerMessage("12")).map((message) => message.runs.length)).toEqual([12, 12, 1]);
  });

  it("splits sends under the queue's 100-message and 256 KB limits", () => {
    const small = bundle(
      1,
      Array.from({ length: 150 }, (_, i) => sentRun(i)),
    ).flatMap((message) => message.runs.map((run) => ({ shard: 1, runs: [run] })));
    expect(sendGroups(small).map((group) => group.length)).toEqual([100, 50]);
    // Large runs (long ids): every send stays under 256 KB.
    const large = bundle(
      1,
      Array.from({ length: 400 }, (_, i) => sentRun(i, "x".repeat(900))),
    );
    const groups = sendGroups(large);
    expect(groups.length).toBeGreaterThan(1);
    for (const group of groups) expect(JSON.stringify(group).length).toBeLessThan(256 * 1024);
    expect(groups.flat()).toEqual(large);
  });

  it("executes every run of a tick that fills several messages exactly once", async () => {
    const count = RUNS_PER_MESSAGE * 2 + 11;
    const ids = jobIdsOnOneShard("bundle", count);
    const at = new Date(Date.now() + 60 * 60_000).toISOString();
    const confirmed = await pushJobs(
      env,
      ids.map((jobId) =>
        snapshot(
          jobId,
          spec({
            schedule: { type: "once", at },
            target: { url: targetUrl(`/bundle/${jobId}`), method: "POST" },
          }),
        ),
      ),
    );
    expect(confirmed.size).toBe(count);
    // Every job was inserted by the one push statement, with its timer at the instant.
    const stored = await shardRows<{ n: number; at: number }>(
      ids[0] as string,
      "SELECT COUNT(*) AS n, MIN(next_fire_ms) AS at FROM jobs WHERE job_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    );
    expect(stored[0]).toEqual({ n: count, at: Date.parse(at) });
    const stub = stubFor(ids[0] as string);
    await inShardTables(stub, async (sql, storage) => {
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?1, next_scheduled_ms = ?1 WHERE job_id IN (SELECT value FROM json_each(?2))",
        Date.now(),
        JSON.stringify(ids),
      );
      await storage.setAlarm(Date.now());
    });
    await runDurableObjectAlarm(stub);
    await vi.waitFor(async () => {
      const calls = await targetCalls("/bundle/");
      expect(new Set(calls.map((call) => call.path)).size).toBe(count);
    }, WAIT);
    const calls = await targetCalls("/bundle/");
    expect(calls).toHaveLength(count);
  });

  it("applies a push that holds a new job and its next version, in order", async () => {
    const jobId = uniqueJobId("twice");
    const at = new Date(Date.now() + 60 * 60_000).toISOString();
    const first = spec({
      schedule: { type: "once", at },
      target: { url: targetUrl("/twice/a"), method: "POST" },
    });
    const second = spec({
      schedule: { type: "once", at },
      target: { url: targetUrl("/twice/b"), method: "POST" },
    });
    const confirmed = await pushJobs(env, [snapshot(jobId, first, 1), snapshot(jobId, second, 2)]);
    expect([...confirmed]).toEqual([jobId]);
    const [row] = await shardRows<{ version: number; spec_json: string }>(
      jobId,
      "SELECT version, spec_json FROM jobs WHERE job_id = ?",
      jobId,
    );
    expect(row?.version).toBe(2);
    expect(row?.spec_json).toContain("/twice/b");
  });
});
