import { describe, expect, it } from "vitest";
import { JobDetailPage } from "../../src/console/pages/job-detail";
import type { Job } from "../../src/console/types";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, apiOk } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";

disarmShardsAfterEach();

async function tenantWithJob(name: string, job: Record<string, unknown>) {
  const tenant = await apiOk<{ id: string }>("POST", "/v1/tenants", ADMIN_TOKEN, { name });
  const key = await apiOk<{ key: string }>("POST", "/v1/api-keys", ADMIN_TOKEN, { tenant_id: tenant.id });
  const created = await apiOk<Job>("POST", "/v1/jobs", key.key, {
    name: "explained",
    schedule: { type: "cron", expr: "0 3 * * *", timezone: "Europe/Paris" },
    target: { url: "https://example.com/hook" },
    ...job,
  });
  return { tenantId: tenant.id, key: key.key, job: created };
}

/** The visible text of a page, tags dropped. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");

describe("the job page", () => {
  it("shows every field that changes how a run goes out", async () => {
    const { key, job } = await tenantWithJob("explains-fields", {
      flow_control: { key: "billing-api", rate: 10, period: "1m", parallelism: 2 },
      jitter: "30s",
      alert_after: "5m",
      pause_after_failures: 3,
      on_failure: "https://example.com/failed",
      metadata: { team: "billing" },
    });
    const client = new ConsoleClient();
    await client.signIn(key);
    const page = textOf((await client.get(`/console/jobs/${job.id}`)).text);
    expect(page).toContain("Flow control key billing-api: 10 starts per 1m, 2 in flight");
    expect(page).toContain("Jitter up to 30s after each instant");
    expect(page).toContain("Alert after 5m late");
    expect(page).toContain("Pause after failures 3 dead-lettered runs in a row");
    expect(page).toContain("On failure https://example.com/failed");
    expect(page).toContain('Metadata {"team":"billing"}');
  });

  it("offers no Pause, Trigger or Backfill for a COMPLETED job, and all of them for an active one", async () => {
    const { job } = await tenantWithJob("explains-actions", {});
    const render = async (status: typeof job.status) =>
      String(await JobDetailPage({ job: { ...job, status }, runs: [], nextCursor: null, csrf: "t" }));
    const active = await render("ACTIVE");
    for (const action of ["/pause", "/trigger", "/backfill", "/edit", "/delete"])
      expect(active).toContain(action);
    const completed = await render("COMPLETED");
    for (const action of ["/pause", "/resume", "/trigger", "/backfill"])
      expect(completed).not.toContain(action);
    expect(completed).toContain("/delete");
    expect(textOf(completed)).toContain("This job is completed: no run starts any more.");
  });
});

describe("the header and the sign-in page", () => {
  it("names a tenant key's tenant, not only its id", async () => {
    const { key, tenantId } = await tenantWithJob("acme-explained", {});
    const client = new ConsoleClient();
    await client.signIn(key);
    const page = (await client.get("/console/jobs")).text;
    expect(textOf(page)).toMatch(/Tenant acme-explained \(…?[0-9A-Z]+\)/);
    expect(page).toContain(`title="${tenantId}"`);
  });

  it("says the cookie holds a session id, not the key", async () => {
    const page = textOf((await new ConsoleClient().get("/console/login")).text);
    expect(page).toContain("holds only a random session id, not the key");
    expect(page).not.toContain("encrypted");
  });
});
