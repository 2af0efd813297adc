// A tenant learns that it is throttled by its share: while its due runs wait in their shard for
// room in a full dispatch window, GET /v1/stats says so (how many, since when, on how many shards)
// and the console's overview shows it; another tenant of the same shard is not reported throttled.

import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { runMaintenancePass } from "../../durable-objects/maintenance/pass";
import { jobStores } from "../../src/db/databases";
import { pushJobs, shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { holdBudgetFull } from "../helpers/backlog";
import { ConsoleClient } from "../helpers/console-client";
import { snapshot, spec, stubFor, targetUrl, uniqueJobId } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

interface ShareWait {
  throttled: boolean;
  waiting_runs: number;
  waiting_since: string | null;
  shards: number;
}

/** `count` job ids on one shard. */
function jobIdsOnOneShard(label: string, count: number): string[] {
  const first = uniqueJobId(label);
  const ids = [first];
  while (ids.length < count) {
    const candidate = uniqueJobId(label);
    if (shardOfJob(env, candidate) === shardOfJob(env, first)) ids.push(candidate);
  }
  return ids;
}

async function indexTenantShard(tenantId: string, jobId: string): Promise<void> {
  for (const db of jobStores(env).homes) {
    await db
      .prepare("INSERT OR IGNORE INTO tenant_shards (tenant_id, shard) VALUES (?, ?)")
      .bind(tenantId, shardOfJob(env, jobId))
      .run();
  }
}

describe("throttled by the tenant's share", () => {
  it("is reported by the stats and the overview while the tenant's due runs wait for the window", async () => {
    const flooder = await createTenantWithKey("share-flooder");
    const quiet = await createTenantWithKey("share-quiet");
    const ids = jobIdsOnOneShard("share-wait", 41);
    const jobId = ids[0] as string;
    const quietJob = ids[40] as string;
    const jobSpec = spec({
      schedule: { type: "interval", every: "1h" },
      target: { url: targetUrl("/ok/share") },
    });
    await pushJobs(
      env,
      ids.map((id) => ({
        ...snapshot(id, jobSpec),
        tenantId: id === quietJob ? quiet.tenantId : flooder.tenantId,
      })),
    );
    await indexTenantShard(flooder.tenantId, jobId);
    await indexTenantShard(quiet.tenantId, jobId);
    const before = await api<{ share_wait: ShareWait }>("GET", "/v1/stats", { token: flooder.key });
    expect(before.body.share_wait).toEqual({
      throttled: false,
      waiting_runs: 0,
      waiting_since: null,
      shards: 0,
    });

    // The flooder's calls fill the window; its 40 jobs come due 5 s ago, the quiet tenant's too.
    const release = await holdBudgetFull(jobId, flooder.tenantId);
    const dueMs = Date.now() - 5_000;
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ?", dueMs, dueMs);
    });
    await runDurableObjectAlarm(stubFor(jobId));

    // A stats read serves identical reads for a second (src/shard/tenant-fanout.ts): ask until fresh.
    const flooded = await vi.waitFor(
      async () => {
        const stats = await api<{ share_wait: ShareWait }>("GET", "/v1/stats", { token: flooder.key });
        expect(stats.body.share_wait.waiting_runs).toBeGreaterThan(0);
        return stats;
      },
      { timeout: 5_000, interval: 200 },
    );
    expect(flooded.status).toBe(200);
    expect(flooded.body.share_wait).toMatchObject({ throttled: true, waiting_runs: 40, shards: 1 });
    // Since the pass that created the runs (a late instant's run is due when it is created).
    const sinceMs = Date.parse(flooded.body.share_wait.waiting_since ?? "");
    expect(sinceMs).toBeGreaterThanOrEqual(dueMs);
    expect(sinceMs).toBeLessThanOrEqual(Date.now() - 1_000);
    // The quiet tenant is under its share: its run was sent in that pass.
    const other = await api<{ share_wait: ShareWait }>("GET", "/v1/stats", { token: quiet.key });
    expect(other.body.share_wait.throttled).toBe(false);

    const console = new ConsoleClient();
    await console.signIn(flooder.key);
    const page = await console.get("/console");
    expect(page.text).toContain('data-field="share-wait"');
    expect(page.text).toMatch(
      /40 due runs wait on 1 shard for this tenant(&#39;|')s share of the dispatch window/,
    );

    await release();
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("DELETE FROM runs");
      sql.exec("DELETE FROM jobs");
    });
  });

  it("raises one tenant_throttled alert while it lasts and resolves it when the wait ends", async () => {
    const flooder = await createTenantWithKey("share-alerted");
    const quiet = await createTenantWithKey("share-alert-quiet");
    const ids = jobIdsOnOneShard("share-alert", 21);
    const jobId = ids[0] as string;
    const quietJob = ids[20] as string;
    const jobSpec = spec({
      schedule: { type: "interval", every: "1h" },
      target: { url: targetUrl("/ok/alert") },
    });
    await pushJobs(
      env,
      ids.map((id) => ({
        ...snapshot(id, jobSpec),
        tenantId: id === quietJob ? quiet.tenantId : flooder.tenantId,
      })),
    );
    const release = await holdBudgetFull(jobId, flooder.tenantId);
    const dueMs = Date.now() - 5_000;
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ?", dueMs, dueMs);
    });
    await runDurableObjectAlarm(stubFor(jobId));

    type Alert = {
      id: string;
      kind: string;
      state: string;
      resolution: string | null;
      details: Record<string, unknown>;
    };
    const throttledAlerts = async (key: string) => {
      const res = await api<{ data: Alert[] }>("GET", "/v1/alerts?limit=100", { token: key });
      expect(res.status).toBe(200);
      return res.body.data.filter((alert) => alert.kind === "tenant_throttled");
    };
    // Passes while the runs wait (counted once they waited past a second): one alert, raised once.
    await vi.waitFor(
      async () => {
        await runMaintenancePass(env, Date.now());
        expect(await throttledAlerts(flooder.key)).toHaveLength(1);
      },
      { timeout: 10_000, interval: 300 },
    );
    await runMaintenancePass(env, Date.now());
    const raised = await throttledAlerts(flooder.key);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ state: "open", details: { waiting_runs: 20, shards: 1 } });
    expect(await throttledAlerts(quiet.key)).toEqual([]);

    // The wait ends (the window's calls end, the runs go): the next pass resolves it.
    await release();
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec("DELETE FROM runs");
      sql.exec("DELETE FROM jobs");
    });
    await runMaintenancePass(env, Date.now());
    const ended = await throttledAlerts(flooder.key);
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ state: "resolved", resolution: "throttle_ended" });
  });
});
