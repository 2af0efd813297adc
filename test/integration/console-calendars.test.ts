import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { apiOk } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";

// The job created here stays scheduled on its shard: delete the alarms after each test.
disarmShardsAfterEach();

let tenantKey = "";
beforeAll(async () => {
  const tenant = await apiOk<{ id: string }>("POST", "/v1/tenants", env.EDGECRON_ADMIN_TOKEN, {
    name: "console-cal",
  });
  tenantKey = (
    await apiOk<{ key: string }>("POST", "/v1/api-keys", env.EDGECRON_ADMIN_TOKEN, { tenant_id: tenant.id })
  ).key;
});

async function signedIn(): Promise<ConsoleClient> {
  const client = new ConsoleClient();
  await client.signIn(tenantKey);
  return client;
}

describe("console calendars", () => {
  it("creates a calendar from rule lines, lists it, and names a bad line's field", async () => {
    const client = await signedIn();
    const form = await client.get("/console/calendars/new");
    expect(form.status).toBe(200);
    expect(unlabelledControls(form.text)).toEqual([]);
    const csrf = ConsoleClient.csrfOf(form.text);
    const bad = await client.post("/console/calendars/new", {
      _csrf: csrf,
      name: "uk",
      timezone: "Europe/London",
      rules: "2026-12-25\nnot a date",
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("rules.1.date");
    const created = await client.post("/console/calendars/new", {
      _csrf: csrf,
      name: "uk",
      description: "bank holidays",
      timezone: "Europe/London",
      rules: "2026-12-25 # Christmas\n2026-12-24..2026-12-31\nsat,sun",
    });
    expect(created.status).toBe(303);
    const list = await client.get("/console/calendars");
    expect(list.text).toContain('data-calendar="uk"');
    expect(list.text).toContain("2026-12-24 to 2026-12-31");
    expect(list.text).toContain("every sat, sun");
    const calendar = await apiOk<{ rules: unknown[] }>("GET", "/v1/calendars/uk", tenantKey);
    expect(calendar.rules).toEqual([
      { type: "date", date: "2026-12-25" },
      { type: "range", from: "2026-12-24", to: "2026-12-31" },
      { type: "weekly", days: ["sat", "sun"] },
    ]);
  });

  it("creates a job with two specs and a calendar from the form and shows them on its page", async () => {
    const client = await signedIn();
    await apiOk("PUT", "/v1/calendars/office", tenantKey, {
      timezone: "UTC",
      rules: [{ type: "weekly", days: ["sun"] }],
    });
    const form = await client.get("/console/jobs/new");
    const res = await client.post("/console/jobs", {
      _csrf: ConsoleClient.csrfOf(form.text),
      name: "two-specs",
      "schedule.type": "cron",
      "schedule.expr": "0 9 * * *",
      "schedule.timezone": "Europe/London",
      "schedules.more": "0 17 * * *",
      calendars: "office",
      "target.url": "http://127.0.0.1:9/hook",
      "target.method": "POST",
    });
    expect(res.status).toBe(303);
    const location = res.headers.get("location") ?? "";
    const detail = await client.get(location.replace(/\?.*$/, ""));
    expect(detail.text).toContain("Spec 1");
    expect(detail.text).toContain("cron 0 17 * * * (Europe/London)");
    expect(detail.text).toContain("office");
    const jobId = /\/console\/jobs\/([^/?]+)/.exec(location)?.[1] ?? "";
    const job = await apiOk<{ schedules: unknown[]; calendars: string[] }>(
      "GET",
      `/v1/jobs/${jobId}`,
      tenantKey,
    );
    expect(job.schedules).toHaveLength(2);
    expect(job.calendars).toEqual(["office"]);
    const refused = await client.post("/console/calendars/office/delete", {
      _csrf: ConsoleClient.csrfOf(detail.text),
      confirmed: "1",
    });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(jobId);
    await apiOk("DELETE", `/v1/jobs/${jobId}`, tenantKey);
  });
});
