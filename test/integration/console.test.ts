import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, apiOk } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";
import { seedRun } from "../helpers/seed";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

/** A tenant key and one job of that tenant, created through the real API. */
async function fixtures(): Promise<{ tenantId: string; tenantKey: string; jobId: string }> {
  const tenant = await apiOk<{ id: string }>("POST", "/v1/tenants", ADMIN_TOKEN, { name: "console-test" });
  const key = await apiOk<{ key: string }>("POST", "/v1/api-keys", ADMIN_TOKEN, { tenant_id: tenant.id });
  const job = await apiOk<{ id: string }>("POST", "/v1/jobs", key.key, {
    name: "console-fixture",
    schedule: { type: "cron", expr: "30 2 * * *", timezone: "America/New_York" },
    target: { url: "http://127.0.0.1:9/hook" },
  });
  return { tenantId: tenant.id, tenantKey: key.key, jobId: job.id };
}

let data: { tenantId: string; tenantKey: string; jobId: string };
beforeAll(async () => {
  data = await fixtures();
});

describe("console sign-in", () => {
  it("sends a visitor without a session to the sign-in page", async () => {
    const res = await new ConsoleClient().get("/console/jobs?status=ACTIVE");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/login?next=%2Fconsole%2Fjobs%3Fstatus%3DACTIVE");
  });

  it("renders a labelled sign-in form", async () => {
    const res = await new ConsoleClient().get("/console/login");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain('<label for="api_key">');
    expect(unlabelledControls(res.text)).toEqual([]);
  });

  it("sets an HttpOnly, Secure, SameSite=Strict session cookie for a valid key", async () => {
    const client = new ConsoleClient();
    const res = await client.signIn(ADMIN_TOKEN);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console");
    const session = res.cookies.find((line) => line.startsWith("__Host-edgecron_console="));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).toMatch(/Path=\//);
    expect(session).not.toContain(ADMIN_TOKEN);
  });

  it("omits Secure on localhost, where the console runs over plain http", async () => {
    const res = await new ConsoleClient("http://localhost:8787").signIn(ADMIN_TOKEN);
    const session = res.cookies.find((line) => line.startsWith("edgecron_console="));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).not.toMatch(/Secure/);
  });

  it("rejects an unknown key with an inline error and no session", async () => {
    const client = new ConsoleClient();
    const res = await client.signIn("ek_not_a_key");
    expect(res.status).toBe(401);
    expect(res.text).toContain("That key was not accepted");
    expect(client.jar.has("__Host-edgecron_console")).toBe(false);
  });

  it("refuses a sign-in post without the form's CSRF token", async () => {
    const client = new ConsoleClient();
    await client.get("/console/login");
    const res = await client.post("/console/login", { api_key: ADMIN_TOKEN });
    expect(res.status).toBe(403);
  });

  it("treats a tampered session cookie as signed out", async () => {
    const client = new ConsoleClient();
    await client.signIn(ADMIN_TOKEN);
    const sealed = client.jar.get("__Host-edgecron_console") ?? "";
    client.jar.set("__Host-edgecron_console", `${sealed.slice(0, -4)}AAAA`);
    expect((await client.get("/console")).status).toBe(303);
  });
});

/** A key that signs in and is then revoked. */
async function keyRevokedAfterSignIn(client: ConsoleClient): Promise<void> {
  const key = await apiOk<{ id: string; key: string }>("POST", "/v1/api-keys", ADMIN_TOKEN, {
    tenant_id: data.tenantId,
  });
  await client.signIn(key.key);
  await apiOk("DELETE", `/v1/api-keys/${key.id}`, ADMIN_TOKEN);
}

describe("console session end", () => {
  it("signs out a session whose key the API stops accepting", async () => {
    const client = new ConsoleClient();
    await keyRevokedAfterSignIn(client);
    const res = await client.get("/console/jobs");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/login");
    expect(res.cookies.find((line) => line.startsWith("__Host-edgecron_console="))).toMatch(/Max-Age=0/);
  });
});

describe("console CSRF protection", () => {
  it("answers 403 to an action without the CSRF token", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const res = await client.post(`/console/jobs/${data.jobId}/pause`, { confirmed: "1" });
    expect(res.status).toBe(403);
  });

  it("answers 403 to a forged token", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const other = new ConsoleClient();
    await other.signIn(data.tenantKey);
    const res = await client.post(`/console/jobs/${data.jobId}/pause`, {
      _csrf: await other.csrf(),
      confirmed: "1",
    });
    expect(res.status).toBe(403);
  });

  it("answers 403 to a cross-site post even with a valid token", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const csrf = await client.csrf();
    const res = await client.post(
      `/console/jobs/${data.jobId}/pause`,
      { _csrf: csrf, confirmed: "1" },
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    );
    expect(res.status).toBe(403);
  });

  it("asks for confirmation, then performs the action with a valid token", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const csrf = await client.csrf();
    const ask = await client.post(`/console/jobs/${data.jobId}/pause`, { _csrf: csrf });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('name="confirmed" value="1"');
    const done = await client.post(`/console/jobs/${data.jobId}/pause`, { _csrf: csrf, confirmed: "1" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/console/jobs/${data.jobId}?notice=paused`);
    const resumed = await client.post(`/console/jobs/${data.jobId}/resume`, { _csrf: csrf, confirmed: "1" });
    expect(resumed.headers.get("location")).toBe(`/console/jobs/${data.jobId}?notice=resumed`);
  });
});

describe("console pages", () => {
  const pages = [
    "/console",
    "/console/jobs",
    "/console/jobs/new",
    "/console/runs",
    "/console/dead-letters",
    "/console/alerts",
  ];

  it.each(pages)("renders %s as HTML with every control labelled", async (path) => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const res = await client.get(path);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).toContain('<a class="skip-link" href="#main">');
    expect(unlabelledControls(res.text)).toEqual([]);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
  });

  it("redirects /console/ to /console", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const res = await client.get("/console/");
    expect(res.status).toBe(301);
    expect(new URL(res.headers.get("location") ?? "", "https://edgecron.test").pathname).toBe("/console");
  });

  it("shows a job's next 10 fire times in its zone and in UTC", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const res = await client.get(`/console/jobs/${data.jobId}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("Job zone (America/New_York)");
    expect(res.text.match(/\(America\/New_York\)<\/time>/g)?.length).toBe(10);
    expect(res.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    expect(unlabelledControls(res.text)).toEqual([]);
  });

  it("names the tz database version fire times are computed with in every page's footer", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const health = await (await SELF.fetch("https://edgecron.test/healthz")).json<{ tzdata: string }>();
    for (const path of ["/console", `/console/jobs/${data.jobId}`]) {
      const res = await client.get(path);
      expect(res.text).toMatch(
        new RegExp(
          `<footer class="site-footer"><p class="footer-line">Time-zone data <code[^>]*>${health.tzdata}</code>`,
        ),
      );
    }
  });

  it("shows the admin, and only the admin, every shard's tz database progress on the overview", async () => {
    const admin = new ConsoleClient();
    await admin.signIn(ADMIN_TOKEN);
    const overview = await admin.get("/console");
    expect(overview.text).toContain('<h2 id="tzdata">Time-zone data</h2>');
    expect(overview.text).toMatch(/All 16 shards&#39;|All 16 shards'/);
    const tenant = new ConsoleClient();
    await tenant.signIn(data.tenantKey);
    expect((await tenant.get("/console")).text).not.toContain('id="tzdata"');
  });

  it("re-renders the new-job form with the API's field errors inline", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const csrf = ConsoleClient.csrfOf((await client.get("/console/jobs/new")).text);
    const res = await client.post("/console/jobs", {
      _csrf: csrf,
      name: "bad-cron",
      "schedule.type": "cron",
      "schedule.expr": "* *",
      "schedule.timezone": "UTC",
      "target.url": "http://127.0.0.1:9/hook",
    });
    expect(res.status).toBe(422);
    expect(res.text).toMatch(/id="f-schedule-expr"[^>]*aria-invalid="true"/);
    expect(res.text).toContain('id="f-schedule-expr-error"');
    expect(res.text).toContain('href="#f-schedule-expr"');
  });

  it("shows every bad field of the new-job form after one submit", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const csrf = ConsoleClient.csrfOf((await client.get("/console/jobs/new")).text);
    const res = await client.post("/console/jobs", {
      _csrf: csrf,
      name: "every-field",
      "schedule.type": "cron",
      "schedule.expr": "61 * * * *",
      "schedule.timezone": "Mars/Base",
      "target.url": "http://127.0.0.1:9/hook",
      // Not JSON: reported by the form itself, beside what the API says of the rest.
      "target.headers": "{not json",
    });
    expect(res.status).toBe(422);
    for (const field of ["schedule-expr", "schedule-timezone", "target-headers"]) {
      expect(res.text).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
      expect(res.text).toContain(`id="f-${field}-error"`);
    }
    expect(res.text).toContain("61 is out of range");
    expect(res.text).toContain("must be valid JSON");
  });

  it("previews fire times as a fragment for the live preview", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const csrf = await client.csrf();
    const res = await client.post(
      "/console/jobs/preview",
      { "schedule.type": "cron", "schedule.expr": "*/5 * * * *", "schedule.timezone": "Europe/Berlin" },
      { "x-console-fragment": "preview", "x-csrf-token": csrf },
    );
    expect(res.status).toBe(200);
    expect(res.text.match(/<li>/g)?.length).toBe(5);
    expect(res.text).toContain("(Europe/Berlin)");
  });

  it("gives the admin token a tenant switcher and a tenant key none", async () => {
    const admin = new ConsoleClient();
    await admin.signIn(ADMIN_TOKEN);
    expect((await admin.get("/console/jobs")).text).toContain('<label for="tenant-select">Tenant</label>');
    const tenant = new ConsoleClient();
    await tenant.signIn(data.tenantKey);
    expect((await tenant.get("/console/jobs")).text).not.toContain("tenant-select");
  });
});

describe("console tenant switch", () => {
  it("lets the admin token act as a chosen tenant", async () => {
    const admin = new ConsoleClient();
    await admin.signIn(ADMIN_TOKEN);
    const res = await admin.post("/console/tenant", {
      _csrf: await admin.csrf(),
      tenant: data.tenantId,
      next: "/console/jobs",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/jobs");
    const page = await admin.get("/console/jobs");
    expect(page.text).toContain(`<option value="${data.tenantId}" selected=""`);
    expect(page.text).toContain(data.jobId);
  });

  it("refuses a tenant switch from a tenant key", async () => {
    const client = new ConsoleClient();
    await client.signIn(data.tenantKey);
    const res = await client.post("/console/tenant", { _csrf: await client.csrf(), tenant: "tn_other" });
    expect(res.status).toBe(403);
  });
});

describe("console sign-out", () => {
  it("clears the session cookie", async () => {
    const client = new ConsoleClient();
    await client.signIn(ADMIN_TOKEN);
    const res = await client.post("/console/logout", { _csrf: await client.csrf() });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/login");
    expect(res.cookies.find((line) => line.startsWith("__Host-edgecron_console="))).toMatch(/Max-Age=0/);
    expect((await client.get("/console")).status).toBe(303);
  });
});

/** A run's history in its shard, and the dead letter and alert in D1: one per store the pages read. */
async function seedHistory(tenantId: string, jobId: string, nowMs: number) {
  const events = [
    { state: "SCHEDULED", at_ms: nowMs - 3000, reason: "due", attempt: 1 },
    { state: "FAILED", at_ms: nowMs - 2000, reason: "target answered 500: boom", attempt: 1 },
    { state: "DEAD_LETTERED", at_ms: nowMs - 1000, reason: "attempts exhausted (1 of 1)", attempt: 1 },
  ];
  const seedLate = (kind: string, latenessMs: number, firstReason: string) =>
    seedRun({
      jobId,
      tenantId,
      kind,
      maxAttempts: 1,
      fence: null,
      targetStatus: null,
      scheduledAtMs: nowMs - latenessMs,
      createdAtMs: nowMs,
      latenessMs,
      events: [{ state: "SCHEDULED", at_ms: nowMs, reason: firstReason, attempt: 1 }],
    });
  const runId = await seedRun({
    jobId,
    tenantId,
    state: "DEAD_LETTERED",
    maxAttempts: 1,
    fence: null,
    targetStatus: 500,
    error: "target answered 500: boom",
    latenessMs: 40,
    scheduledAtMs: nowMs - 3000,
    createdAtMs: nowMs,
    events,
  });
  await seedLate("schedule", 30, "due");
  await seedLate("catch_up", 3_600_000, "misfire catch_up: fired late (3 missed)");
  await seedLate("schedule", 7_200_000, "misfire fire_now: fired late (1 missed)");
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO dead_letters (id, tenant_id, job_id, run_id, attempt, scheduled_at_ms, reason, last_error,
         target_status, payload_json, created_at_ms)
       VALUES (?, ?, ?, ?, 1, ?, 'exhausted', 'target answered 500: boom', 500, ?, ?)`,
    ).bind(
      `dlq_${runId}`,
      tenantId,
      jobId,
      runId,
      nowMs - 3000,
      JSON.stringify({ method: "POST", url: "https://example.com/a/very/long/path/hook", headers: {} }),
      nowMs,
    ),
    env.DB.prepare(
      `INSERT INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
       VALUES (?, ?, ?, ?, 'dead_lettered', ?, 'Run was dead-lettered', '{}', ?)`,
    ).bind(`alt_${runId}`, tenantId, jobId, runId, `dl:${runId}`, nowMs),
  ]);
  return { runId };
}

describe("console run history, job names and dead-letter detail", () => {
  let runId = "";
  let client: ConsoleClient;
  beforeAll(async () => {
    ({ runId } = await seedHistory(data.tenantId, data.jobId, Date.now()));
    client = new ConsoleClient();
    await client.signIn(data.tenantKey);
  });

  it("shows a run's every transition with its time and reason", async () => {
    const res = await client.get(`/console/runs/${runId}`);
    expect(res.status).toBe(200);
    const rows = [...res.text.matchAll(/<tr data-event-state="([A-Z_]+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((row) => row[1])).toEqual(["SCHEDULED", "FAILED", "DEAD_LETTERED"]);
    expect(rows[1]?.[2]).toContain("target answered 500: boom");
    expect(rows.every((row) => /<time datetime="[^"]+Z">/.test(row[2] ?? ""))).toBe(true);
    expect(res.text).toContain("console-fixture");
    expect(unlabelledControls(res.text)).toEqual([]);
  });

  it("answers 404 for another tenant's or an unknown run", async () => {
    expect((await client.get("/console/runs/run_nope")).status).toBe(404);
  });

  it("names the job beside its id and links each run to its history on runs, dead letters and alerts", async () => {
    for (const path of ["/console/runs", "/console/dead-letters", "/console/alerts"]) {
      const res = await client.get(path);
      expect(res.text, path).toMatch(new RegExp(`title="${data.jobId}"[^>]*>console-fixture</a>`));
      expect(res.text, path).toContain(`href="/console/runs/${runId}"`);
    }
  });

  it("opens a dead letter's detail in a row spanning the table, with the whole URL, error and run id", async () => {
    const res = await client.get("/console/dead-letters");
    const detail =
      /<tr class="row-detail" id="inspect-([^"]+)"[^>]*><td colspan="(\d+)">([\s\S]*?)<\/tr>/.exec(res.text);
    expect(detail?.[1]).toBe(`dlq_${runId}`);
    const headerCells = /<thead>([\s\S]*?)<\/thead>/.exec(res.text)?.[1]?.match(/<th /g)?.length;
    expect(Number(detail?.[2])).toBe(headerCells);
    expect(detail?.[3]).toContain("POST https://example.com/a/very/long/path/hook");
    expect(detail?.[3]).toContain("target answered 500: boom");
    expect(detail?.[3]).toContain(`>${runId}</a>`);
    expect(res.text).toContain(`href="#inspect-dlq_${runId}"`);
  });

  it("offers the real alert kinds as a select", async () => {
    const res = await client.get("/console/alerts?kind=dead_lettered");
    const select = /<select id="filter-kind" name="kind">([\s\S]*?)<\/select>/.exec(res.text)?.[1] ?? "";
    expect([...select.matchAll(/value="([^"]*)"/g)].map((m) => m[1])).toEqual([
      "",
      "dead_lettered",
      "paused_after_failures",
      "missed_run",
      "tenant_throttled",
    ]);
    expect(select).toContain('<option value="dead_lettered" selected="">');
  });

  it("counts catch-up and resume fires apart from the scheduler's own lateness", async () => {
    // The overview's stats are one read shared for a second (SHARED_READ_MS): a page an earlier
    // test loaded for this tenant may still answer. Read until the seeded runs are in it.
    let res = await client.get("/console");
    for (const untilMs = Date.now() + 5_000; !res.text.includes("(4 runs)") && Date.now() < untilMs; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      res = await client.get("/console");
    }
    const own = /<div data-lateness="own"><h3>[^<]*\((\d+) runs?\)<\/h3>([\s\S]*?)<\/ul>/.exec(res.text);
    const deliberate = /<div data-lateness="deliberate"><h3>[^<]*\((\d+) runs?\)<\/h3>([\s\S]*?)<\/ul>/.exec(
      res.text,
    );
    // Every run has a part that is ours: the dead-lettered run's 40 ms and the due run's 30 ms are
    // all ours; the catch-up and the resume were created late on purpose, so none of theirs is.
    expect(Number(own?.[1])).toBe(4);
    expect(own?.[2]).toContain("40 ms");
    expect(own?.[2]).not.toContain(" s<");
    expect(Number(deliberate?.[1])).toBe(2);
    expect(deliberate?.[2]).toContain("7200.00 s");
    expect(res.text).toMatch(/<li data-cause="catch_up">catch-up: 1 run, p99 3600.00 s<\/li>/);
    expect(res.text).toMatch(
      /<li data-cause="misfire">misfire \(late fire, resume\): 1 run, p99 7200.00 s<\/li>/,
    );
  });
});

describe("console tenant picker", () => {
  it("tells same-named tenants apart by a short id", async () => {
    const first = await apiOk<{ id: string }>("POST", "/v1/tenants", ADMIN_TOKEN, { name: "twin" });
    const second = await apiOk<{ id: string }>("POST", "/v1/tenants", ADMIN_TOKEN, { name: "twin" });
    const admin = new ConsoleClient();
    await admin.signIn(ADMIN_TOKEN);
    const page = (await admin.get("/console/jobs")).text;
    const labels = [first.id, second.id].map(
      (id) => new RegExp(`<option value="${id}"[^>]*>([^<]+)</option>`).exec(page)?.[1],
    );
    expect(labels[0]).toBe(`twin (…${first.id.slice(-6)})`);
    expect(labels[1]).toBe(`twin (…${second.id.slice(-6)})`);
    expect(labels[0]).not.toBe(labels[1]);
  });
});
