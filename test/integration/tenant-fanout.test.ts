// Tenant-wide views ask only the shards of the tenant's jobs, at the production shard count: the
// Worker runs with SHARD_COUNT 4,096 and every request to a shard is counted on its way to the
// real Durable Object. A tenant whose jobs sit on ~10 shards costs ~10 shard requests a view, not
// 4,096, and the console overview's reads (stats twice, the failed and dead-lettered lists)
// cost two requests per such shard: within an invocation's 10,000 subrequests at any size.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { BASE, createTenantWithKey, jobBody } from "../helpers/api";
import { seedRun } from "../helpers/seed";

disarmShardsAfterEach();

const PRODUCTION_SHARDS = "4096";
const SUBREQUESTS_PER_INVOCATION = 10_000;

/** The test env at 4,096 shards, its shard namespace counting every RPC made on a stub. */
function countingEnv(): { env: Env; calls: string[] } {
  const calls: string[] = [];
  const real = env.SHARD_SCHEDULER;
  const namespace = new Proxy(real, {
    get(target, prop) {
      if (prop !== "getByName") {
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (name: string) => {
        const stub = target.getByName(name);
        // An RPC stub answers any property with a callable; count the call, then make it.
        return new Proxy(
          {},
          {
            get(_unused, method) {
              if (typeof method !== "string" || method === "then") return undefined;
              return (...args: unknown[]) => {
                calls.push(`${name}.${method}`);
                return (stub as unknown as Record<string, (...a: unknown[]) => unknown>)[method]?.(...args);
              };
            },
          },
        );
      };
    },
  });
  return { env: { ...env, SHARD_COUNT: PRODUCTION_SHARDS, SHARD_SCHEDULER: namespace }, calls };
}

async function call<T>(
  testEnv: Env,
  path: string,
  init: { method: string; token: string; body?: string },
): Promise<T> {
  const headers = new Headers({ authorization: `Bearer ${init.token}` });
  if (init.body !== undefined) headers.set("content-type", "application/json");
  const request = new Request<unknown, IncomingRequestCfProperties>(`${BASE}${path}`, {
    method: init.method,
    headers,
    body: init.body,
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, testEnv, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

describe("tenant-wide views at 4,096 shards", () => {
  it("ask only the shards of the tenant's jobs: runs, failures, stats and the overview's reads", async () => {
    const production = countingEnv();
    const t = await createTenantWithKey("fanout");
    const jobs: { id: string; shard: number }[] = [];
    for (let i = 0; i < 10; i++) {
      jobs.push(
        await call(production.env, "/v1/jobs", {
          method: "POST",
          token: t.key,
          body: JSON.stringify(jobBody()),
        }),
      );
    }
    const shards = new Set(jobs.map((job) => job.shard));
    expect(Math.max(...shards)).toBeLessThan(4096);
    expect(shards.size).toBeGreaterThan(5); // ten jobs hashed over 4,096 shards
    const failedJob = jobs[3] as { id: string };
    const failedRun = await seedRun({ jobId: failedJob.id, tenantId: t.tenantId, state: "FAILED" });

    const count = async (read: () => Promise<unknown>): Promise<string[]> => {
      production.calls.length = 0;
      await read();
      return [...production.calls];
    };
    const get = <T>(path: string) => call<T>(production.env, path, { method: "GET", token: t.key });

    const runs = await count(() => get("/v1/runs?limit=20"));
    expect(runs.length).toBe(shards.size);
    expect(runs.every((c) => c.endsWith(".tenantHistory"))).toBe(true);

    let failed: { data: { id: string }[] } = { data: [] };
    const failures = await count(async () => {
      failed = await get("/v1/runs?state=FAILED&limit=10");
    });
    expect(failed.data.map((run) => run.id)).toEqual([failedRun]);
    expect(failures.length).toBe(shards.size);

    let stats: { runs: Record<string, number> } | null = null;
    const statsCalls = await count(async () => {
      stats = await get("/v1/stats");
    });
    expect(statsCalls.length).toBe(shards.size);
    expect(JSON.stringify(stats)).toContain("FAILED");

    // The overview, in an isolate that has read nothing yet: stats and two failure lists at once,
    // then the lateness (the stats again).
    const fresh = countingEnv();
    const getFresh = <T>(path: string) => call<T>(fresh.env, path, { method: "GET", token: t.key });
    const [, overviewFailed, overviewDead] = await Promise.all([
      getFresh("/v1/stats"),
      getFresh<{ data: { id: string }[] }>("/v1/runs?state=FAILED&limit=10"),
      getFresh<{ data: { id: string }[] }>("/v1/runs?state=DEAD_LETTERED&limit=10"),
    ]);
    await getFresh("/v1/stats");
    expect(overviewFailed.data.map((run) => run.id)).toEqual([failedRun]);
    expect(overviewDead.data).toEqual([]);
    expect(fresh.calls.length).toBe(2 * shards.size);
    // what a tenant on every one of the 4,096 shards would then cost, with the page's own reads
    expect(2 * Number(PRODUCTION_SHARDS) + 10).toBeLessThanOrEqual(SUBREQUESTS_PER_INVOCATION);
  });

  it("asks no shard for a tenant with no jobs", async () => {
    const production = countingEnv();
    const t = await createTenantWithKey("empty");
    const page = await call<{ data: unknown[] }>(production.env, "/v1/runs", { method: "GET", token: t.key });
    expect(page.data).toEqual([]);
    expect(production.calls).toEqual([]);
  });
});
