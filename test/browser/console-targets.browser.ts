// The job form's target kinds in a real browser, against `wrangler dev` running edgecron beside
// the fixture Worker (test/e2e/target-configs.ts): choosing a kind shows only its fields, a
// service-binding job created through the form fires into the other Worker, and the job page
// names the kind. The form fits 1366 and 390 px.
import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  apiClient,
  removeState,
  type SchedulerProcess,
  startScheduler,
  startTarget,
  type TargetServer,
  waitUntil,
} from "../e2e/harness";
import { TARGET_BINDINGS, writeTargetConfigs } from "../e2e/target-configs";
import { horizontalOverflow, launchChromium, setWidth, shoot } from "./browser-helpers";

describe("console target kinds in Chromium", () => {
  let server: SchedulerProcess;
  let recorder: TargetServer;
  let configs: string[] = [];
  let browser: Browser;
  let page: Page;
  let tenantKey: string;

  beforeAll(async () => {
    recorder = await startTarget();
    configs = writeTargetConfigs(`${recorder.url}/record`);
    server = await startScheduler({ configs, vars: { TARGET_BINDINGS } });
    const admin = apiClient(server.baseUrl, ADMIN_TOKEN);
    const tenant = await admin<{ id: string }>("POST", "/v1/tenants", { name: "browser-targets" });
    tenantKey = (await admin<{ key: string }>("POST", "/v1/api-keys", { tenant_id: tenant.body.id })).body
      .key;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await recorder?.close();
    for (const config of configs) rmSync(config, { force: true });
    if (server) removeState(server.stateDir);
  });

  it("shows only the chosen kind's fields and creates a service-binding job that fires", async () => {
    await page.goto(`${server.baseUrl}/console/login`);
    await page.getByLabel("API key or admin token").fill(tenantKey);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}/console`),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    await page.goto(`${server.baseUrl}/console/jobs/new`);
    await expect.poll(() => page.getByLabel("URL").isVisible()).toBe(true);
    expect(await page.getByLabel("Binding").isVisible()).toBe(false);
    await page.getByLabel("Target kind").selectOption("service");
    await expect.poll(() => page.getByLabel("URL").isVisible()).toBe(false);
    expect(await page.getByLabel("Binding").isVisible()).toBe(true);
    expect(await page.getByLabel("Path on the Worker").isVisible()).toBe(true);
    await page.getByLabel("Target kind").selectOption("queue");
    await expect.poll(() => page.getByLabel("Path on the Worker").isVisible()).toBe(false);
    expect(await page.getByLabel("Method").isVisible()).toBe(false);
    for (const width of [390, 1366]) {
      await setWidth(page, width);
      expect(await horizontalOverflow(page), `new-job form at ${width} px`).toBe(0);
      await shoot(page, `job-form-queue-target-${width}`);
    }

    await page.getByLabel("Target kind").selectOption("service");
    await page.getByLabel("Name").fill("browser-service-target");
    await page.locator('input[name="schedule.type"][value="interval"]').check();
    await page.getByLabel("Every").fill("2s");
    await page.getByLabel("Binding").fill("BILLING");
    await page.getByLabel("Path on the Worker").fill("/hook");
    await Promise.all([
      page.waitForURL(/\/console\/jobs\/job_[0-9A-Z]{26}\?notice=created$/),
      page.getByRole("button", { name: "Create job" }).click(),
    ]);
    await page.getByText("Service binding (a Worker)").waitFor();
    await page.getByText("service BILLING: POST /hook").first().waitFor();
    await shoot(page, "job-detail-service-target");
    const jobId = /job_[0-9A-Z]{26}/.exec(page.url())?.[0] ?? "";
    await waitUntil(
      () =>
        recorder.calls.some(
          (call) => call.path === "/record" && JSON.parse(call.body).key.startsWith(`${jobId}:`),
        ),
      { timeoutMs: 30_000, what: "the service-binding call to reach the fixture Worker" },
    );
    await apiClient(server.baseUrl, tenantKey)("POST", `/v1/jobs/${jobId}/pause`);
  });
});
