// Tenant weights in the fair share of a saturated dispatch window: the admin sets a tenant's
// weight with its limits, every shard of the tenant is told at once, and a shard's window is
// split in proportion (a weight-2 tenant is sent about twice a weight-1 tenant's runs).

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { setTenantWeight, tenantWeightReader } from "../../durable-objects/shard/flow/tenant-weights";
import { jobStores } from "../../src/db/databases";
import { pushJobs, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { jobIdsOnOneShard, setFaultsOf, snapshot, spec, stubFor, targetUrl } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

const JOBS_PER_TENANT = 600;

interface Limits {
  weight: number;
  overridden: string[];
  defaults: { weight: number };
}

/** Every tenant's jobs on the shard of `ids`, all due a second ago (1,200 > any window). */
async function floodOneShard(tenants: readonly string[], ids: readonly string[]): Promise<void> {
  const jobSpec = spec({
    schedule: { type: "interval", every: "1h" },
    target: { url: targetUrl("/ok/weights") },
  });
  const confirmed = await pushJobs(
    env,
    ids.map((jobId, i) => ({ ...snapshot(jobId, jobSpec), tenantId: tenants[i % tenants.length] as string })),
  );
  expect(confirmed.size).toBe(ids.length);
  const dueMs = Date.now() - 1_000;
  await inShardTables(stubFor(ids[0] as string), (sql, _storage) => {
    sql.exec("UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ?", dueMs, dueMs);
  });
}

/** One pass of the shard with its sends "lost" (what it sent stays DISPATCHED): counts by tenant. */
async function onePassSends(jobId: string): Promise<Map<string, { sent: number; waiting: number }>> {
  await setFaultsOf(jobId, { dropDispatches: true });
  await runDurableObjectAlarm(stubFor(jobId));
  const rows = await inShardTables(stubFor(jobId), (sql, _storage) =>
    sql
      .exec<{ tenant_id: string; state: string; n: number }>(
        "SELECT tenant_id, state, COUNT(*) AS n FROM runs GROUP BY tenant_id, state",
      )
      .toArray(),
  );
  await setFaultsOf(jobId, {});
  const byTenant = new Map<string, { sent: number; waiting: number }>();
  for (const row of rows) {
    const entry = byTenant.get(row.tenant_id) ?? { sent: 0, waiting: 0 };
    // Sent is every run that left SCHEDULED: the shard's own alarm may ring before the faults are
    // set, and a run it sent then may already be running or done when the rows are read.
    if (row.state === "SCHEDULED") entry.waiting += row.n;
    else entry.sent += row.n;
    byTenant.set(row.tenant_id, entry);
  }
  return byTenant;
}

async function clearShard(jobId: string): Promise<void> {
  await inShardTables(stubFor(jobId), (sql, _storage) => {
    sql.exec("DELETE FROM runs");
    sql.exec("DELETE FROM jobs");
  });
}

async function shardWeights(jobId: string): Promise<Record<string, number>> {
  const rows = await inShardTables(stubFor(jobId), (sql, _storage) =>
    sql.exec<{ tenant_id: string; weight: number }>("SELECT tenant_id, weight FROM tenant_weights").toArray(),
  );
  return Object.fromEntries(rows.map((row) => [row.tenant_id, row.weight]));
}

describe("tenant weights", () => {
  it("are set with the limits, default 1, and refused out of 1..100 naming the field", async () => {
    const t = await createTenantWithKey("weights-api");
    const initial = await api<Limits>("GET", `/v1/tenants/${t.tenantId}/limits`);
    expect(initial.body).toMatchObject({ weight: 1, overridden: [], defaults: { weight: 1 } });
    for (const weight of [0, 101, 1.5, "2"]) {
      const bad = await api<{ code: string; errors: { path: string }[] }>(
        "PUT",
        `/v1/tenants/${t.tenantId}/limits`,
        { body: { weight } },
      );
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((error) => error.path)).toEqual(["weight"]);
    }
    const put = await api<Limits>("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: { weight: 3 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ weight: 3, overridden: ["weight"] });
    // The tenant reads its own weight; a PUT without it goes back to the default.
    const own = await api<Limits>("GET", `/v1/tenants/${t.tenantId}/limits`, { token: t.key });
    expect(own.body.weight).toBe(3);
    const reset = await api<Limits>("PUT", `/v1/tenants/${t.tenantId}/limits`, { body: {} });
    expect(reset.body).toMatchObject({ weight: 1, overridden: [] });
  });

  it("give a weight-2 tenant about twice a weight-1 tenant's share of a saturated window", async () => {
    const heavy = await createTenantWithKey("weights-heavy");
    const light = await createTenantWithKey("weights-light");
    const ids = jobIdsOnOneShard("weights", 2 * JOBS_PER_TENANT);
    const jobId = ids[0] as string;
    await floodOneShard([heavy.tenantId, light.tenantId], ids);
    // The tenant's shards come from the job databases' index, which these pushed jobs skipped.
    for (const db of jobStores(env).homes) {
      await db
        .prepare("INSERT OR IGNORE INTO tenant_shards (tenant_id, shard) VALUES (?, ?)")
        .bind(heavy.tenantId, shardOfJob(env, jobId))
        .run();
    }
    const put = await api("PUT", `/v1/tenants/${heavy.tenantId}/limits`, { body: { weight: 2 } });
    expect(put.status).toBe(200);
    // Pushed: the shard knows before any pass of it has read D1.
    expect(await shardWeights(jobId)).toEqual({ [heavy.tenantId]: 2 });
    const sends = await onePassSends(jobId);
    const heavySends = sends.get(heavy.tenantId) ?? { sent: 0, waiting: 0 };
    const lightSends = sends.get(light.tenantId) ?? { sent: 0, waiting: 0 };
    // Saturated: both tenants have runs left waiting for the window.
    expect(heavySends.waiting).toBeGreaterThan(0);
    expect(lightSends.waiting).toBeGreaterThan(0);
    expect(lightSends.sent).toBeGreaterThan(0);
    const ratio = heavySends.sent / lightSends.sent;
    expect(ratio).toBeGreaterThan(1.7);
    expect(ratio).toBeLessThan(2.3);
    await clearShard(jobId);
  });

  it("reach a shard the push missed from D1, on its first send of the tenant", async () => {
    const heavy = await createTenantWithKey("weights-missed");
    const light = await createTenantWithKey("weights-missed-light");
    // Set before the tenant has any job: no shard to push to.
    const put = await api("PUT", `/v1/tenants/${heavy.tenantId}/limits`, { body: { weight: 4 } });
    expect(put.status).toBe(200);
    const ids = jobIdsOnOneShard("weights-missed", 2 * JOBS_PER_TENANT);
    const jobId = ids[0] as string;
    await floodOneShard([heavy.tenantId, light.tenantId], ids);
    // Only this test's tenants: an earlier test's tenant may have been weighted on the same shard.
    expect(await shardWeights(jobId)).not.toHaveProperty(heavy.tenantId);
    await onePassSends(jobId);
    const weights = await shardWeights(jobId);
    expect(weights[heavy.tenantId]).toBe(4);
    expect(weights).not.toHaveProperty(light.tenantId);
    await clearShard(jobId);
  });

  it("are read by a shard once and seen again as soon as one is set (the shard keeps a copy)", async () => {
    const [jobId] = jobIdsOnOneShard("weights-copy", 1);
    const seen = await inShardTables(stubFor(jobId as string), (sql, _storage) => {
      const weightOf = tenantWeightReader(sql);
      const before = weightOf("ten_copy");
      setTenantWeight(sql, "ten_copy", 5, 1_000);
      const set = weightOf("ten_copy");
      const other = tenantWeightReader(sql)("ten_copy");
      setTenantWeight(sql, "ten_copy", 1, 2_000);
      return { before, set, other, reset: weightOf("ten_copy") };
    });
    expect(seen).toEqual({ before: 1, set: 5, other: 5, reset: 1 });
  });
});
