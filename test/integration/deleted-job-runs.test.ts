// Every run that was created keeps its record to the end, through the API: a run queued ahead of
// its instant and cancelled by a delete of its job is readable by id and listed with the job's
// runs, after the delete too; the target is never called for it.
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import { targetCalls, targetUrl, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

interface RunView {
  id: string;
  state: string;
  scheduled_at: string;
  events: { state: string; reason: string }[];
}

describe("a run cancelled by a delete", () => {
  it("is recorded CANCELLED with its reason, readable by id and listed with the job's runs after the delete", async () => {
    const tenant = await createTenantWithKey("deleted-runs");
    // Due in ~3 s: inside the dispatch lead (wrangler.toml: 5 s), so its run is queued ahead at once.
    const atMs = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const path = `/ok/deleted-runs/${crypto.randomUUID()}`;
    const created = await api<{ id: string }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: {
        name: "deleted-while-queued",
        schedule: { type: "once", at: new Date(atMs).toISOString() },
        target: { url: targetUrl(path) },
      },
    });
    expect(created.status).toBe(201);
    const controlPath = `/ok/deleted-runs-control/${crypto.randomUUID()}`;
    const control = await api("POST", "/v1/jobs", {
      token: tenant.key,
      body: {
        name: "control",
        schedule: { type: "once", at: new Date(atMs).toISOString() },
        target: { url: targetUrl(controlPath) },
      },
    });
    expect(control.status).toBe(201);
    const jobId = created.body.id;
    const queued = await vi.waitFor(async () => {
      const runs = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
      expect(runs.body.data.map((run) => run.state)).toEqual(["DISPATCHED"]);
      return runs.body.data[0] as RunView;
    }, WAIT);
    expect(Date.now()).toBeLessThan(atMs);

    expect((await api("DELETE", `/v1/jobs/${jobId}`, { token: tenant.key })).status).toBe(200);

    const byId = await api<RunView>("GET", `/v1/runs/${queued.id}`, { token: tenant.key });
    expect(byId.status).toBe(200);
    expect(byId.body.state).toBe("CANCELLED");
    expect(byId.body.events.at(-1)).toMatchObject({
      state: "CANCELLED",
      reason: expect.stringMatching(/deleted/),
    });
    const listed = await api<{ data: RunView[] }>("GET", `/v1/jobs/${jobId}/runs`, { token: tenant.key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((run) => [run.id, run.state])).toEqual([[queued.id, "CANCELLED"]]);

    // A job due at the same instant is called; the deleted one never is.
    await vi.waitFor(async () => expect(await targetCalls(controlPath)).toHaveLength(1), WAIT);
    expect(await targetCalls(path)).toEqual([]);
  });
});
