// The console's side of long-running jobs: the job's completion mode and heartbeat timeout in the
// form and the definition, and an accepted run's acceptance, last heartbeat and reported result.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { apiOk } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";
import { seedRun } from "../helpers/seed";

// The fixture job is scheduled on its shard: delete the alarms after each test.
disarmShardsAfterEach();

let tenantKey = "";
let jobId = "";
let client: ConsoleClient;

beforeAll(async () => {
  const admin = env.EDGECRON_ADMIN_TOKEN;
  const tenant = await apiOk<{ id: string }>("POST", "/v1/tenants", admin, { name: "console-long" });
  tenantKey = (await apiOk<{ key: string }>("POST", "/v1/api-keys", admin, { tenant_id: tenant.id })).key;
  jobId = (
    await apiOk<{ id: string }>("POST", "/v1/jobs", tenantKey, {
      name: "export",
      schedule: { type: "cron", expr: "0 3 * * *", timezone: "UTC" },
      target: { url: "http://127.0.0.1:9/export" },
      completion: "callback",
      heartbeat_timeout: "2m",
    })
  ).id;
  const nowMs = Date.now();
  const events = [
    { state: "RUNNING", at_ms: nowMs - 2_000, reason: "claimed by a consumer", attempt: 1 },
    { state: "RUNNING", at_ms: nowMs - 1_000, reason: "target accepted the work (200); waiting", attempt: 1 },
  ];
  await seedRun({
    jobId,
    tenantId: tenant.id,
    state: "RUNNING",
    scheduledAtMs: nowMs - 2_000,
    createdAtMs: nowMs,
    fence: null,
    latenessMs: null,
    events,
    acceptedAtMs: nowMs - 1_000,
    heartbeatAtMs: nowMs - 500,
    result: { rows: 1200 },
  });
  client = new ConsoleClient();
  await client.signIn(tenantKey);
});

describe("the console for long-running jobs", () => {
  it("shows how a job's runs end, and edits the mode and heartbeat timeout in the form", async () => {
    const detail = await client.get(`/console/jobs/${jobId}`);
    expect(detail.text).toContain("the target reports back (heartbeat within 2m)");
    const form = await client.get(`/console/jobs/${jobId}/edit`);
    expect(form.text).toMatch(/<option value="callback" selected/);
    expect(form.text).toMatch(/id="f-heartbeat_timeout"[^>]*value="2m"/);
    expect(unlabelledControls(form.text)).toEqual([]);
  });

  it("names a bad heartbeat timeout beside its field", async () => {
    const csrf = ConsoleClient.csrfOf((await client.get("/console/jobs/new")).text);
    const res = await client.post("/console/jobs", {
      _csrf: csrf,
      name: "too-short",
      "schedule.type": "cron",
      "schedule.expr": "0 3 * * *",
      "schedule.timezone": "UTC",
      "target.url": "http://127.0.0.1:9/hook",
      completion: "callback",
      heartbeat_timeout: "1s",
    });
    expect(res.status).toBe(422);
    expect(res.text).toMatch(/id="f-heartbeat_timeout"[^>]*aria-invalid="true"/);
    expect(res.text).toContain("must be between 10s and 1d");
  });

  it("shows an accepted run's acceptance, last heartbeat and result, and marks it awaiting the target", async () => {
    const list = await client.get("/console/runs");
    expect(list.text).toContain("awaiting target");
    const runId = /data-run-id="(run_\w+_\d+)"/.exec(list.text)?.[1];
    const run = await client.get(`/console/runs/${runId}`);
    expect(run.text).toContain("Accepted by target");
    expect(run.text).toContain("waiting for the target to report back");
    expect(run.text).toContain("Last heartbeat");
    expect(run.text).toContain("&quot;rows&quot;: 1200");
  });
});
