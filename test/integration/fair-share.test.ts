// Fair share in the shard: when more runs are due than the unclaimed budget can send, the tick
// takes them round robin across tenants, so one tenant's backlog cannot hold back another's run.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pushJobs, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import {
  seedTenant,
  setFaultsOf,
  snapshot,
  spec,
  stubFor,
  targetUrl,
  uniqueJobId,
} from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

const FLOODER = "ten_fair_flooder";
const QUIET = "ten_fair_quiet";

/** `count` job ids that all live on one shard. */
function jobIdsOnOneShard(label: string, count: number): string[] {
  const first = uniqueJobId(label);
  const shard = shardOfJob(env, first);
  const ids = [first];
  while (ids.length < count) {
    const candidate = uniqueJobId(label);
    if (shardOfJob(env, candidate) === shard) ids.push(candidate);
  }
  return ids;
}

describe("fair share between tenants", () => {
  it("sends another tenant's single due run in the same tick as one tenant's 2,000", async () => {
    await seedTenant(FLOODER);
    await seedTenant(QUIET);
    const ids = jobIdsOnOneShard("fair", 2_001);
    const quietJob = ids[ids.length - 1] as string;
    const jobSpec = spec({
      schedule: { type: "interval", every: "1h" },
      target: { url: targetUrl("/ok/fair") },
    });
    const confirmed = await pushJobs(
      env,
      ids.map((jobId) => ({ ...snapshot(jobId, jobSpec), tenantId: jobId === quietJob ? QUIET : FLOODER })),
    );
    expect(confirmed.size).toBe(ids.length);
    // The flood is older than the quiet tenant's run: oldest-first would send the flood only.
    const nowMs = Date.now();
    await inShardTables(stubFor(quietJob), (sql, _storage) => {
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ? WHERE tenant_id = ?",
        nowMs - 5_000,
        nowMs - 5_000,
        FLOODER,
      );
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ? WHERE job_id = ?",
        nowMs - 1_000,
        nowMs - 1_000,
        quietJob,
      );
    });
    // Sends are "lost" (runs stay DISPATCHED), so what one tick did stays visible.
    await setFaultsOf(quietJob, { dropDispatches: true });
    await runDurableObjectAlarm(stubFor(quietJob));
    const states = await inShardTables(stubFor(quietJob), (sql, _storage) =>
      sql
        .exec<{ tenant_id: string; state: string; n: number }>(
          "SELECT tenant_id, state, COUNT(*) AS n FROM runs GROUP BY tenant_id, state",
        )
        .toArray(),
    );
    await setFaultsOf(quietJob, {});
    const quiet = states.filter((row) => row.tenant_id === QUIET);
    expect(quiet).toEqual([{ tenant_id: QUIET, state: "DISPATCHED", n: 1 }]);
    // The flood got the rest of the budget in that tick and waits for the next ones.
    const flood = new Map(states.filter((row) => row.tenant_id === FLOODER).map((row) => [row.state, row.n]));
    expect(flood.get("DISPATCHED")).toBeGreaterThan(0);
    expect(flood.get("SCHEDULED")).toBeGreaterThan(0);
    // Clean up: the flood's runs would otherwise keep the shard busy for the next test.
    await inShardTables(stubFor(quietJob), (sql, _storage) => {
      sql.exec("DELETE FROM runs");
      sql.exec("DELETE FROM jobs");
    });
  });
});
