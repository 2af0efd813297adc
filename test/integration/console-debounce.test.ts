// The console's side of debounced triggers: the job's debounce on its page, and on a run the
// triggers folded into it.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { apiOk } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";

// The folded run waits on its shard for an hour: delete the alarms after each test.
disarmShardsAfterEach();

let tenantKey = "";
let client: ConsoleClient;

beforeAll(async () => {
  const admin = env.EDGECRON_ADMIN_TOKEN;
  const tenant = await apiOk<{ id: string }>("POST", "/v1/tenants", admin, { name: "console-debounce" });
  tenantKey = (await apiOk<{ key: string }>("POST", "/v1/api-keys", admin, { tenant_id: tenant.id })).key;
  client = new ConsoleClient();
  await client.signIn(tenantKey);
});

describe("the console for debounced jobs", () => {
  it("shows a job's debounce, and how many triggers a run folded", async () => {
    const job = await apiOk<{ id: string }>("POST", "/v1/jobs", tenantKey, {
      name: "sync",
      schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
      target: { url: "http://127.0.0.1:9/sync" },
      debounce: { key: "account", period: "1h", mode: "trailing", max_wait: "2h" },
    });
    const detail = await client.get(`/console/jobs/${job.id}`);
    expect(detail.text).toContain(
      "trailing: one run 1h after the last trigger (at most 2h after the first); key account",
    );
    const first = await apiOk<{ run_id: string }>("POST", `/v1/jobs/${job.id}/trigger`, tenantKey);
    for (let i = 0; i < 2; i++) await apiOk("POST", `/v1/jobs/${job.id}/trigger`, tenantKey);
    const run = await client.get(`/console/runs/${first.run_id}`);
    expect(run.status).toBe(200);
    expect(run.text).toContain('data-triggers-folded="2"');
    expect(run.text).toContain("2 more triggers folded into this run");
    // The run's trace id, to find its spans in the user's own tracing tool.
    const view = await apiOk<{ trace_id: string }>("GET", `/v1/runs/${first.run_id}`, tenantKey);
    expect(view.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(run.text).toContain(`data-trace-id="${view.trace_id}"`);
    const plain = await apiOk<{ id: string }>("POST", "/v1/jobs", tenantKey, {
      name: "plain",
      schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
      target: { url: "http://127.0.0.1:9/plain" },
    });
    expect((await client.get(`/console/jobs/${plain.id}`)).text).toContain(
      "none: every trigger is its own run",
    );
    await apiOk("DELETE", `/v1/jobs/${job.id}`, tenantKey);
  });

  it("sets a job's debounce from the form, shows it in the edit form, and clears it", async () => {
    const csrf = ConsoleClient.csrfOf((await client.get("/console/jobs/new")).text);
    const fields = {
      _csrf: csrf,
      name: "form-debounced",
      "schedule.type": "once",
      "schedule.at": "2099-01-01T00:00:00Z",
      "target.url": "https://example.com/hook",
      "debounce.period": "30s",
      "debounce.mode": "trailing",
      "debounce.key": "account",
      "debounce.max_wait": "5m",
    };
    const created = await client.post("/console/jobs", fields);
    expect(created.status).toBe(303);
    const jobs = await apiOk<{ data: { id: string; debounce: unknown }[] }>(
      "GET",
      "/v1/jobs?name=form-debounced",
      tenantKey,
    );
    const job = jobs.data[0];
    expect(job?.debounce).toEqual({ period: "30s", mode: "trailing", key: "account", max_wait: "5m" });
    const edit = await client.get(`/console/jobs/${job?.id}/edit`);
    expect(edit.text).toMatch(/id="f-debounce-period"[^>]*value="30s"/);
    // A bad period is named at its field, and nothing changes.
    const bad = await client.post(`/console/jobs/${job?.id}/edit`, { ...fields, "debounce.period": "0s" });
    expect(bad.status).toBe(422);
    expect(bad.text).toMatch(/id="f-debounce-period"[^>]*aria-invalid="true"/);
    await apiOk("DELETE", `/v1/jobs/${job?.id}`, tenantKey);
  });
});
