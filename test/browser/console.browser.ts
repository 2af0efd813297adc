// The console in a real browser against `wrangler dev` and a local HTTP target: sign in, create a
// job through the form (after a validation error), watch it fire, pause and resume it, dead-letter
// a failing job and redrive it, and see the runs on the overview charts. Screenshots of every page
// at 1366 and 390 px land in test/browser/artifacts/.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
import {
  clickAndConfirm,
  horizontalOverflow,
  lastColumnOverflowPx,
  launchChromium,
  overflowingElements,
  reloadUntil,
  setWidth,
  shoot,
  WIDTHS,
} from "./browser-helpers";

describe("admin console in Chromium", () => {
  let server: SchedulerProcess;
  let target: TargetServer;
  let browser: Browser;
  let page: Page;
  let tenantKey: string;
  let tenantId: string;
  let jobId = "";
  let failingJobId = "";
  let failedRunId = "";
  let failTarget = true;

  beforeAll(async () => {
    target = await startTarget();
    target.respond((call) => ({ status: call.path.startsWith("/fail") && failTarget ? 500 : 200 }));
    server = await startScheduler();
    const admin = apiClient(server.baseUrl, ADMIN_TOKEN);
    const tenant = await admin<{ id: string }>("POST", "/v1/tenants", { name: "browser-suite" });
    expect(tenant.status).toBe(201);
    tenantId = tenant.body.id;
    const key = await admin<{ key: string }>("POST", "/v1/api-keys", {
      tenant_id: tenantId,
      name: "console",
    });
    expect(key.status).toBe(201);
    tenantKey = key.body.key;
    // A calendar with long rule lists, so its list and form pages are checked for width too.
    const calendar = await apiClient(server.baseUrl, tenantKey)("POST", "/v1/calendars", {
      name: "england-and-wales-bank-holidays",
      description: "Bank holidays, the Christmas shutdown and weekends",
      timezone: "Europe/London",
      rules: [
        { type: "range", from: "2026-12-24", to: "2027-01-01" },
        ...["2027-04-02", "2027-04-05", "2027-05-03", "2027-05-31", "2027-08-30"].map((date) => ({
          type: "date",
          date,
        })),
        { type: "weekly", days: ["sat", "sun"] },
      ],
    });
    expect(calendar.status).toBe(201);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) removeState(server.stateDir);
    await target?.close();
  });

  it("signs in with a tenant key", async () => {
    await page.goto(`${server.baseUrl}/console`);
    await expect.poll(() => page.url()).toContain("/console/login");
    await shoot(page, "login");
    await page.getByLabel("API key or admin token").fill("ek_wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That key was not accepted").waitFor();
    await page.getByLabel("API key or admin token").fill(tenantKey);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}/console`),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    // The footer says which targets this deployment calls: the suite's server runs local mode.
    const policy = page.locator("footer [data-target-policy]");
    expect(await policy.isVisible()).toBe(true);
    expect(await policy.getAttribute("data-target-policy")).toBe("local");
    expect(await policy.textContent()).toMatch(/^Targets: local mode, any http\(s\) URL is called, private/);
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === "edgecron_console");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Strict");
  });

  it("creates a job through the form after showing the API's validation error", async () => {
    await page.getByRole("link", { name: "New job" }).click();
    await page.getByLabel("Name").fill("browser-every-2s");
    await page.getByLabel("Cron expression").fill("61 * * * *");
    await page.getByLabel("URL").fill(`${target.url}/ok`);
    // Live preview reports the bad expression before anything is submitted.
    await page.locator("#schedule-preview .preview-errors").waitFor();
    await page.getByRole("button", { name: "Create job" }).click();
    await page.locator("#form-errors").waitFor();
    expect(await page.locator("#f-schedule-expr").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#f-schedule-expr-error").textContent()).not.toBe("");
    await shoot(page, "new-job-error");
    await page.getByLabel("Cron expression").fill("*/2 * * * * *");
    await page.locator("#schedule-preview ol.fire-times li").nth(4).waitFor();
    await shoot(page, "new-job-preview");
    await Promise.all([
      page.waitForURL(/\/console\/jobs\/[^/]+\?notice=created/),
      page.getByRole("button", { name: "Create job" }).click(),
    ]);
    jobId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    expect(jobId).not.toBe("");
    await page.getByRole("heading", { level: 1, name: "browser-every-2s" }).waitFor();
  });

  it("shows the job firing and its run in the history", async () => {
    await reloadUntil(
      page,
      "a SUCCEEDED run in the history",
      async () => (await page.locator('tr[data-state="SUCCEEDED"]').count()) > 0,
    );
    expect(target.calls.some((call) => call.path === "/ok")).toBe(true);
    await shoot(page, "job-detail");
  });

  it("pauses and resumes the job", async () => {
    // A sentinel on the same schedule keeps firing: once it has received two instants after the
    // pause, those instants have passed for the paused job too, and it must have none of them.
    const sentinel = await apiClient(server.baseUrl, tenantKey)<{ id: string }>("POST", "/v1/jobs", {
      name: "browser-sentinel",
      schedule: { type: "cron", expr: "*/2 * * * * *", timezone: "UTC" },
      target: { type: "http", url: `${target.url}/sentinel`, method: "POST" },
    });
    expect(sentinel.status).toBe(201);
    const scheduledAtMs = (call: (typeof target.calls)[number]) =>
      Date.parse(String(call.headers["edgecron-scheduled-at"]));
    await clickAndConfirm(page, page.getByRole("button", { name: "Pause", exact: true }));
    await page.getByRole("status").getByText("Job paused").waitFor();
    const pausedAtMs = Date.now();
    expect(await page.locator(".definition .badge").first().textContent()).toBe("PAUSED");
    await expect
      .poll(
        () =>
          target.calls.filter((call) => call.path === "/sentinel" && scheduledAtMs(call) > pausedAtMs).length,
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(2);
    // A run claimed just before the pause may still arrive; none scheduled after it may.
    expect(target.calls.filter((call) => call.path === "/ok" && scheduledAtMs(call) > pausedAtMs)).toEqual(
      [],
    );
    const callsWhenPaused = target.calls.filter((call) => call.path === "/ok").length;
    await clickAndConfirm(page, page.getByRole("button", { name: "Resume", exact: true }));
    await page.getByRole("status").getByText("Job resumed").waitFor();
    expect(await page.locator(".definition .badge").first().textContent()).toBe("ACTIVE");
    await expect
      .poll(() => target.calls.filter((call) => call.path === "/ok").length, { timeout: 20_000 })
      .toBeGreaterThan(callsWhenPaused);
    const removed = await apiClient(server.baseUrl, tenantKey)("DELETE", `/v1/jobs/${sentinel.body.id}`);
    expect(removed.status).toBe(200);
  });

  it("dead-letters a failing job and redrives it from the console", async () => {
    await page.goto(`${server.baseUrl}/console/jobs/new`);
    await page.getByLabel("Name").fill("browser-failing");
    await page.getByRole("radio", { name: "once" }).check();
    await page.getByLabel("Or after a delay").fill("1s");
    await page.getByLabel("URL").fill(`${target.url}/fail`);
    await page.getByLabel("Max attempts").fill("1");
    await Promise.all([
      page.waitForURL(/notice=created/),
      page.getByRole("button", { name: "Create job" }).click(),
    ]);
    failingJobId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    await page.getByRole("link", { name: "Dead letters" }).click();
    const row = page.locator("tr[data-dead-letter-id]", { hasText: failingJobId });
    await reloadUntil(page, "the dead letter", async () => (await row.count()) > 0);
    expect(await row.textContent()).toContain("browser-failing");
    const letterId = String(await row.getAttribute("data-dead-letter-id"));
    const detail = page.locator(`tr[data-detail-of="${letterId}"]`);
    expect(await detail.isVisible()).toBe(false);
    await row.getByRole("link", { name: `Inspect dead letter ${letterId}` }).click();
    await detail.waitFor({ state: "visible" });
    // The detail spans the table: the URL and run id are on one line each, not cut.
    const detailBox = await detail.boundingBox();
    const rowBox = await row.boundingBox();
    expect(detailBox?.width).toBeGreaterThanOrEqual((rowBox?.width ?? 0) - 1);
    const request = detail.locator("dd").first();
    expect(await request.textContent()).toContain(`${target.url}/fail`);
    expect((await request.boundingBox())?.height ?? 0).toBeLessThan(40);
    failedRunId = String(await detail.locator('a[href^="/console/runs/"]').first().getAttribute("title"));
    expect(failedRunId).toMatch(/^run_/);
    expect(await detail.locator("pre").first().textContent()).toMatch(/500/);
    await shoot(page, "dead-letters");
    failTarget = false;
    await row.getByRole("checkbox").check();
    await clickAndConfirm(page, page.getByRole("button", { name: "Redrive selected" }));
    await page.getByText("Redrive accepted for 1").waitFor();
    await page.goto(`${server.baseUrl}/console/runs?job_id=${encodeURIComponent(failingJobId)}`);
    await reloadUntil(
      page,
      "the redriven run to succeed",
      async () => (await page.locator('tr[data-state="SUCCEEDED"]').count()) > 0,
    );
    expect(target.calls.filter((call) => call.path === "/fail").length).toBeGreaterThanOrEqual(2);
    await shoot(page, "runs-after-redrive");
  });

  it("shows a run's whole state history on its own page", async () => {
    await page.goto(`${server.baseUrl}/console/runs?job_id=${encodeURIComponent(failingJobId)}`);
    await page.getByRole("link", { name: `History of run ${failedRunId}` }).click();
    await page.getByRole("heading", { level: 1, name: `Run ${failedRunId}` }).waitFor();
    const states = await page
      .locator("table.run-history tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-event-state")));
    expect(states[0]).toBe("SCHEDULED");
    expect(states).toContain("FAILED");
    expect(states).toContain("DEAD_LETTERED");
    expect(await page.locator("table.run-history tbody tr time").count()).toBe(states.length);
    expect(await page.locator("main").textContent()).toContain("browser-failing");
    await shoot(page, "run-detail");
  });

  it("fits the runs and alerts tables on a 1366 px screen, names jobs, filters alerts by kind, acknowledges and resolves one", async () => {
    await setWidth(page, 1366);
    // The jobs table too, with a job whose name and target are as long as real ones get.
    const long = await apiClient(server.baseUrl, tenantKey)<{ id: string }>("POST", "/v1/jobs", {
      name: "nightly-invoice-reconciliation-for-the-eu-billing-region",
      schedule: { type: "cron", expr: "15 2 * * MON-FRI", timezone: "America/Argentina/Buenos_Aires" },
      target: {
        url: "https://billing-internal.example.com/api/v2/reconciliation/nightly?region=eu-west&dry_run=false",
      },
    });
    await page.goto(`${server.baseUrl}/console/jobs`);
    await shoot(page, "jobs-long");
    expect(await lastColumnOverflowPx(page, "table.jobs")).toBeLessThanOrEqual(0);
    await apiClient(server.baseUrl, tenantKey)("DELETE", `/v1/jobs/${long.body.id}`);
    await page.goto(`${server.baseUrl}/console/runs`);
    expect(await lastColumnOverflowPx(page, "table.runs")).toBeLessThanOrEqual(0);
    expect(await page.locator("table.runs").textContent()).toContain("browser-every-2s");
    await page.goto(`${server.baseUrl}/console/alerts`);
    await reloadUntil(
      page,
      "the dead-letter alert",
      async () => (await page.locator("table.alerts").count()) > 0,
    );
    expect(await lastColumnOverflowPx(page, "table.alerts")).toBeLessThanOrEqual(0);
    expect(await page.locator("table.alerts").textContent()).toContain("browser-failing");
    const kinds = await page
      .locator("#filter-kind option")
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(kinds).toEqual(["", "dead_lettered", "paused_after_failures", "missed_run", "tenant_throttled"]);
    await page.locator("#filter-kind").selectOption("dead_lettered");
    await Promise.all([
      page.waitForURL(/kind=dead_lettered/),
      page.getByRole("button", { name: "Filter" }).click(),
    ]);
    expect(await page.locator("table.alerts tbody tr").count()).toBeGreaterThan(0);
    expect(await page.locator("#filter-kind").inputValue()).toBe("dead_lettered");
    const shownKinds = await page.locator("table.alerts tbody tr td:nth-child(2)").allTextContents();
    expect(new Set(shownKinds)).toEqual(new Set(["dead_lettered"]));
    // Acknowledge, then resolve, from the alert's own row; the filter survives each post.
    const alertId = await page.locator("table.alerts tbody tr").first().getAttribute("data-alert-id");
    const alertRow = () => page.locator(`tr[data-alert-id="${alertId}"]`);
    await shoot(page, "alerts-open");
    await Promise.all([
      page.waitForURL(/notice=acknowledged/),
      alertRow()
        .getByRole("button", { name: /^Acknowledge alert/ })
        .click(),
    ]);
    expect(page.url()).toContain("kind=dead_lettered");
    expect(await alertRow().getAttribute("data-alert-state")).toBe("acknowledged");
    expect(await lastColumnOverflowPx(page, "table.alerts")).toBeLessThanOrEqual(0);
    await Promise.all([
      page.waitForURL(/notice=resolved/),
      alertRow()
        .getByRole("button", { name: /^Resolve alert/ })
        .click(),
    ]);
    expect(await alertRow().getAttribute("data-alert-state")).toBe("resolved");
    await shoot(page, "alerts-resolved");
    // On a phone the table scrolls sideways inside its own box; the page itself does not.
    await setWidth(page, 390);
    await page.goto(`${server.baseUrl}/console/runs`);
    const wrap = await page
      .locator(".table-wrap", { has: page.locator("table.runs") })
      .evaluate((element) => ({
        scrolls: element.scrollWidth > element.clientWidth,
        overflowX: getComputedStyle(element).overflowX,
      }));
    expect(wrap).toEqual({ scrolls: true, overflowX: "auto" });
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await setWidth(page, 1366);
  });

  it("says why a run waits (its flow-control key) and splits its lateness from the scheduler's", async () => {
    // Two jobs of one key with one call at a time, and a target that holds each call 4 s: one run
    // waits for the other's permit.
    const slow = createServer((_request, response) => {
      setTimeout(() => response.end("ok"), 4_000);
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const port = (slow.address() as AddressInfo).port;
    try {
      const tenantApi = apiClient(server.baseUrl, tenantKey);
      const at = new Date(Date.now() + 2_000).toISOString();
      const jobIds: string[] = [];
      for (const name of ["browser-held-a", "browser-held-b"]) {
        const job = await tenantApi<{ id: string }>("POST", "/v1/jobs", {
          name,
          schedule: { type: "once", at },
          target: { url: `http://127.0.0.1:${port}/${name}` },
          flow_control: { key: "browser-key", parallelism: 1 },
        });
        expect(job.status).toBe(201);
        jobIds.push(job.body.id);
      }
      let heldJob = "";
      await waitUntil(
        async () => {
          for (const id of jobIds) {
            const runs = await tenantApi<{ data: { waiting: { cause: string } | null }[] }>(
              "GET",
              `/v1/jobs/${id}/runs`,
            );
            if (runs.body.data.some((run) => run.waiting?.cause === "flow_control")) heldJob = id;
          }
          return heldJob !== "";
        },
        { timeoutMs: 30_000, intervalMs: 250, what: "a run waiting for its flow-control key" },
      );
      await page.goto(`${server.baseUrl}/console/jobs/${encodeURIComponent(heldJob)}`);
      // Whatever the state the held run shows (waiting in the shard, or sent and refused a permit at
      // its claim), its row says why it waits.
      const waiting = page.locator('[data-waiting="flow_control"]');
      expect(await waiting.textContent()).toBe(
        'flow control key "browser-key": waiting for a permit (1 in flight)',
      );
      await shoot(page, "job-detail-run-waiting");
      await reloadUntil(
        page,
        "the held run SUCCEEDED",
        async () => (await page.locator('tr[data-state="SUCCEEDED"]').count()) > 0,
      );
      const split = await page.locator('tr[data-state="SUCCEEDED"] [data-lateness-split]').textContent();
      // Ours is the time from the permit to the call (a pass, a send, a claim): milliseconds on a
      // quiet machine, a second or more on a loaded one; the format is what is checked here.
      expect(split).toMatch(/^ours (\d+ ms|\d+\.\d\d s) · flow control \d+\.\d\d s$/);
      await page.goto(`${server.baseUrl}/console`);
      expect(await page.locator('[data-cause="flow_control"]').textContent()).toMatch(
        /^flow control key: 1 run, p99 \d+\.\d\d s$/,
      );
      await shoot(page, "overview-lateness-split");
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it("shows the runs on the overview charts", async () => {
    await page.goto(`${server.baseUrl}/console`);
    const chart = page.locator('[data-chart="per-minute"]');
    expect(Number(await chart.getAttribute("data-total-triggers"))).toBeGreaterThan(0);
    expect(await page.locator('[data-chart="runs-chart"]').textContent()).toContain("SUCCEEDED");
    expect(await page.locator('[data-chart="lateness"]').textContent()).toMatch(/p50.*\d+(\.\d+)? m?s/);
    // The paused job's missed instant, fired on resume, is late on purpose: counted apart.
    expect(await page.locator('[data-lateness="deliberate"] h3').textContent()).toMatch(
      /\(([1-9]\d*) runs?\)/,
    );
    expect(await page.locator('[data-chart="lateness-deliberate"]').textContent()).toMatch(
      /p50.*\d+(\.\d+)? m?s/,
    );
    await shoot(page, "overview-with-runs");
  });

  it("is keyboard reachable with a visible focus ring", async () => {
    await page.goto(`${server.baseUrl}/console/jobs`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("skip-link");
    await page.keyboard.press("Enter");
    for (let i = 0; i < 3; i += 1) await page.keyboard.press("Tab");
    const outline = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      return element ? getComputedStyle(element).outlineStyle : "none";
    });
    expect(outline).not.toBe("none");
  });

  it("renders every page at 1366 and 390 px without sideways page scrolling", async () => {
    const pages: [string, string][] = [
      ["overview", "/console"],
      ["jobs", "/console/jobs"],
      ["job", `/console/jobs/${encodeURIComponent(jobId)}`],
      ["edit-job", `/console/jobs/${encodeURIComponent(jobId)}/edit`],
      ["new-job", "/console/jobs/new"],
      ["runs", "/console/runs"],
      ["run", `/console/runs/${encodeURIComponent(failedRunId)}`],
      ["dead-letters", "/console/dead-letters"],
      ["alerts", "/console/alerts"],
      ["calendars", "/console/calendars"],
      ["calendar", "/console/calendars/england-and-wales-bank-holidays"],
      ["new-calendar", "/console/calendars/new"],
    ];
    for (const width of WIDTHS) {
      await setWidth(page, width);
      for (const [name, path] of pages) {
        await page.goto(`${server.baseUrl}${path}`);
        expect(await page.locator("main h1").count()).toBe(1);
        await shoot(page, `page-${name}`);
        const overflowPx = await horizontalOverflow(page);
        const culprits = overflowPx > 0 ? await overflowingElements(page) : [];
        expect(overflowPx, `${name} at ${width}px: ${culprits.join(", ")}`).toBeLessThanOrEqual(0);
      }
    }
    await setWidth(page, 1366);
  });

  it("lets the admin token switch tenants, and signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key or admin token").fill(ADMIN_TOKEN);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}/console`),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    await page.getByLabel("Tenant").selectOption(tenantId);
    await page.getByRole("button", { name: "Switch" }).click();
    await page.goto(`${server.baseUrl}/console/jobs`);
    await page.getByRole("link", { name: "browser-every-2s" }).waitFor();
    await shoot(page, "admin-jobs");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect((await page.context().cookies()).some((cookie) => cookie.name === "edgecron_console")).toBe(false);
  });
});
