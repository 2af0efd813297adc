// The console's job form and job page with a delivery window and a flexible window: the form
// sends them, names their bad fields inline, previews moved instants, and the page shows both.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/client/types";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { apiOk } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";

disarmShardsAfterEach();

let tenantKey = "";
beforeAll(async () => {
  const tenant = await apiOk<{ id: string }>("POST", "/v1/tenants", env.EDGECRON_ADMIN_TOKEN, {
    name: "console-windows",
  });
  tenantKey = (
    await apiOk<{ key: string }>("POST", "/v1/api-keys", env.EDGECRON_ADMIN_TOKEN, { tenant_id: tenant.id })
  ).key;
});

const FORM = {
  "schedule.type": "cron",
  "schedule.expr": "0 6,12 * * *",
  "schedule.timezone": "Europe/Berlin",
  "target.url": "https://example.com/hook",
};

describe("console delivery and flexible windows", () => {
  it("names bad window fields inline after one submit", async () => {
    const client = new ConsoleClient();
    await client.signIn(tenantKey);
    const form = await client.get("/console/jobs/new");
    expect(unlabelledControls(form.text)).toEqual([]);
    const res = await client.post("/console/jobs", {
      _csrf: ConsoleClient.csrfOf(form.text),
      ...FORM,
      name: "bad-window",
      "window.between": "08:00-25:00",
      "window.days": "MON-FRY",
      "flexible_window.max": "3d",
    });
    expect(res.status).toBe(422);
    for (const field of ["window-between", "window-days", "flexible_window-max"]) {
      expect(res.text).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
    }
  });

  it("creates a job with both, previews the moved instants and shows them on the job page", async () => {
    const client = new ConsoleClient();
    await client.signIn(tenantKey);
    const csrf = ConsoleClient.csrfOf((await client.get("/console/jobs/new")).text);
    const fields = {
      _csrf: csrf,
      ...FORM,
      name: "quiet-hours",
      "window.between": "08:00-20:00",
      "window.days": "MON-FRI",
      "window.outside": "defer",
      "flexible_window.max": "15m",
    };
    const preview = await client.post("/console/jobs/preview", fields, { "x-console-fragment": "preview" });
    expect(preview.status).toBe(200);
    // 06:00 Berlin never shows: it is moved to the 08:00 opening (07:00Z in winter).
    expect(preview.text).not.toMatch(/T05:00:00/);
    const created = await client.post("/console/jobs", fields);
    expect(created.status).toBe(303);
    const jobs = await apiOk<{ data: Job[] }>("GET", "/v1/jobs?name=quiet-hours", tenantKey);
    const job = jobs.data[0];
    expect(job?.window).toEqual({ between: ["08:00", "20:00"], days: ["MON-FRI"], outside: "defer" });
    expect(job?.flexible_window).toEqual({ max: "15m" });
    const page = await client.get(`/console/jobs/${job?.id}`);
    expect(page.text).toContain("MON-FRI 08:00-20:00");
    expect(page.text).toContain("within 15m after it");
    const edit = await client.get(`/console/jobs/${job?.id}/edit`);
    expect(edit.text).toMatch(/id="f-window-between"[^>]*value="08:00-20:00"/);
  });
});
