// Control actions during a flood, through the real dev server: a tenant's every-second jobs keep
// the shards busy; a DELETE, a bulk delete and a tenant suspend that answered 2xx are followed by
// no call of those jobs starting more than 1 s later (a call already started may still land).
import { describe, expect, it } from "vitest";
import { createTenantWithKey, waitUntil } from "./harness";
import { useScheduler } from "./scheduler-fixture";

/** A modest flood: enough to keep every shard's tick and the consumers busy, short enough for CI. */
const FLOOD_JOBS = 240;
const STOP_WITHIN_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("e2e: control actions land during a flood", () => {
  const e2e = useScheduler();

  async function floodingTenant(label: string, jobs: number) {
    const { id: tenantId, api } = await createTenantWithKey(e2e.server.baseUrl, { name: label });
    const endAt = new Date(Date.now() + 120_000).toISOString();
    const created = await api<{ results: { job?: { id: string } }[] }>("POST", "/v1/jobs/batch", {
      jobs: Array.from({ length: jobs }, (_, i) => ({
        name: `${label}-${i}`,
        schedule: { type: "interval", every: "1s" },
        target: { url: `${e2e.target.url}/${label}/${i}`, method: "POST" },
        end_at: endAt,
      })),
    });
    expect(created.status, `create ${label}'s jobs: ${JSON.stringify(created.body).slice(0, 500)}`).toBe(200);
    const ids = created.body.results.map((result) => result.job?.id as string);
    await waitUntil(
      () => e2e.target.calls.filter((call) => call.path.startsWith(`/${label}/`)).length > jobs,
      {
        timeoutMs: 30_000,
        what: `the ${label} flood to run`,
      },
    );
    return { tenantId, api, ids };
  }

  /** Calls to paths starting with `prefix` (or exactly `path`) received over 1 s after the answer. */
  const lateCalls = (match: string | ((path: string) => boolean), answeredAtMs: number) => {
    const matches = typeof match === "string" ? (path: string) => path.startsWith(match) : match;
    return e2e.target.calls.filter(
      (call) => matches(call.path) && call.receivedAtMs > answeredAtMs + STOP_WITHIN_MS,
    );
  };

  it("a DELETE, a bulk delete and a suspend answered 2xx: no call of their jobs starts over 1 s later", async () => {
    const deleted = await floodingTenant("flood-del", FLOOD_JOBS);
    const bulk = await floodingTenant("flood-bulk", FLOOD_JOBS / 2);
    const suspended = await floodingTenant("flood-susp", FLOOD_JOBS / 2);

    // 40 single deletes, 4 in flight, each answer time kept for its own job.
    const answered = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < 40) {
        const i = next++;
        const res = await deleted.api("DELETE", `/v1/jobs/${deleted.ids[i]}`);
        expect(res.status).toBe(200);
        answered.set(i, Date.now());
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const bulkRes = await bulk.api<{ matched: number; done: number }>("POST", "/v1/jobs/bulk", {
      action: "delete",
      filter: { name_prefix: "flood-bulk-" },
    });
    expect(bulkRes.body).toEqual({ matched: FLOOD_JOBS / 2, done: FLOOD_JOBS / 2 });
    const bulkAnsweredMs = Date.now();
    const suspendRes = await e2e.admin("POST", `/v1/tenants/${suspended.tenantId}/suspend`);
    expect(suspendRes.status).toBe(200);
    const suspendAnsweredMs = Date.now();

    // Long enough for any late call to show, with the rest of the flood still running.
    await sleep(4_000);
    const lateOfDeleted = [...answered].flatMap(([i, atMs]) =>
      lateCalls((path) => path === `/flood-del/${i}`, atMs),
    );
    expect(lateOfDeleted).toEqual([]);
    expect(lateCalls("/flood-bulk/", bulkAnsweredMs)).toEqual([]);
    expect(lateCalls("/flood-susp/", suspendAnsweredMs)).toEqual([]);
    // The jobs not deleted still run: the flood went on.
    expect(
      lateCalls((path) => path === `/flood-del/${FLOOD_JOBS - 1}`, suspendAnsweredMs).length,
    ).toBeGreaterThan(0);
    expect((await fetch(`${e2e.server.baseUrl}/healthz`)).status).toBe(200);
    const create = await suspended.api<{ code: string }>("POST", "/v1/jobs", {
      name: "after-suspend",
      schedule: { type: "interval", every: "1s" },
      target: { url: `${e2e.target.url}/after` },
    });
    expect(create).toMatchObject({ status: 409, body: { code: "tenant_suspended" } });
  });
});
