// The console closes the operator's loops: alerts acknowledged and resolved from the Alerts page
// (the overview lists only open ones), and a bulk redrive that says which dead letters failed
// and why. Through the real API, D1 and shards.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { ConsoleClient, unlabelledControls } from "../helpers/console-client";
import { targetCalls, targetUrl, WAIT } from "../helpers/scheduling";
import { seedDeadLetter } from "../helpers/seed";

// The redrive test leaves a yearly job on its shard: delete the alarms after each test.
disarmShardsAfterEach();

let tenant: TenantWithKey;
let client: ConsoleClient;

beforeAll(async () => {
  tenant = await createTenantWithKey("console-alerts");
  client = new ConsoleClient();
  await client.signIn(tenant.key);
});

let alertCounter = 0;
async function insertAlert(message: string): Promise<string> {
  alertCounter += 1;
  const id = `alt_console_${Date.now().toString(36)}_${alertCounter}`;
  await env.DB.prepare(
    `INSERT INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
     VALUES (?, ?, NULL, NULL, 'missed_run', ?, ?, '{}', ?)`,
  )
    .bind(id, tenant.tenantId, id, message, Date.now())
    .run();
  return id;
}

/** The table row of one alert on the Alerts page. */
function rowOf(html: string, id: string): string {
  const start = html.indexOf(`data-alert-id="${id}"`);
  if (start < 0) return "";
  return html.slice(start, html.indexOf("</tr>", start));
}

describe("console alerts", () => {
  it("acknowledges and resolves an alert from its row, keeping the page's filters", async () => {
    const id = await insertAlert(`needs attention ${crypto.randomUUID()}`);
    await env.DB.prepare("UPDATE alerts SET delivery = 'none' WHERE id = ?").bind(id).run();
    const page = await client.get("/console/alerts");
    expect(unlabelledControls(page.text)).toEqual([]);
    const row = rowOf(page.text, id);
    expect(row).toContain('data-alert-state="open"');
    expect(row).toContain(`aria-label="Acknowledge alert ${id}"`);
    expect(row).toContain(`aria-label="Resolve alert ${id}"`);
    expect(row).toContain("none: no webhook");

    const csrf = ConsoleClient.csrfOf(page.text);
    const acked = await client.post(`/console/alerts/${id}/ack`, {
      _csrf: csrf,
      kind: "missed_run",
      state: "",
    });
    expect(acked.status).toBe(303);
    expect(acked.headers.get("location")).toBe("/console/alerts?kind=missed_run&notice=acknowledged");
    const afterAck = rowOf((await client.get("/console/alerts")).text, id);
    expect(afterAck).toContain('data-alert-state="acknowledged"');
    expect(afterAck).not.toContain("Acknowledge alert");
    expect(afterAck).toContain(`aria-label="Resolve alert ${id}"`);

    const resolved = await client.post(`/console/alerts/${id}/resolve`, { _csrf: csrf, kind: "", state: "" });
    expect(resolved.status).toBe(303);
    const afterResolve = rowOf((await client.get("/console/alerts?state=resolved")).text, id);
    expect(afterResolve).toContain('data-alert-state="resolved"');
    expect(afterResolve).not.toContain("<button");
    const listed = await api<{ data: { id: string; state: string }[] }>("GET", "/v1/alerts?state=resolved", {
      token: tenant.key,
    });
    expect(listed.body.data.map((alert) => alert.id)).toContain(id);
  });

  it("offers the real states as a filter, and shows only the chosen state", async () => {
    const open = await insertAlert("still open");
    const acknowledged = await insertAlert("already seen");
    await api("POST", `/v1/alerts/${acknowledged}/ack`, { token: tenant.key });
    const page = await client.get("/console/alerts?state=acknowledged");
    const states = [...page.text.matchAll(/<option value="([^"]*)"/g)].map((match) => match[1]);
    expect(states).toEqual(expect.arrayContaining(["", "open", "acknowledged", "resolved"]));
    expect(page.text).toContain('<option value="acknowledged" selected="">');
    expect(rowOf(page.text, acknowledged)).not.toBe("");
    expect(rowOf(page.text, open)).toBe("");
  });

  it("answers 404 for another tenant's alert and leaves it open", async () => {
    const other = await createTenantWithKey("console-alerts-other");
    const theirs = await env.DB.prepare(
      `INSERT INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
       VALUES (?, ?, NULL, NULL, 'missed_run', ?, 'theirs', '{}', ?) RETURNING id`,
    )
      .bind(`alt_theirs_${Date.now().toString(36)}`, other.tenantId, `theirs-${Date.now()}`, Date.now())
      .first<{ id: string }>();
    const res = await client.post(`/console/alerts/${theirs!.id}/resolve`, { _csrf: await client.csrf() });
    expect(res.status).toBe(404);
    const row = await env.DB.prepare("SELECT resolved_at_ms FROM alerts WHERE id = ?")
      .bind(theirs!.id)
      .first();
    expect(row).toEqual({ resolved_at_ms: null });
  });

  it("lists only open alerts on the overview", async () => {
    const tag = crypto.randomUUID();
    await insertAlert(`open-${tag}`);
    const acknowledged = await insertAlert(`acknowledged-${tag}`);
    const resolved = await insertAlert(`resolved-${tag}`);
    await api("POST", `/v1/alerts/${acknowledged}/ack`, { token: tenant.key });
    await api("POST", `/v1/alerts/${resolved}/resolve`, { token: tenant.key });
    const overview = await client.get("/console");
    expect(overview.text).toContain(`open-${tag}`);
    expect(overview.text).not.toContain(`acknowledged-${tag}`);
    expect(overview.text).not.toContain(`resolved-${tag}`);
  });
});

describe("console bulk redrive", () => {
  it("redrives the good dead letters and names each one that failed, with the reason", async () => {
    const targetPath = `/flaky/1/console-bulk-${Date.now().toString(36)}`;
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: {
        name: "console-bulk",
        schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
        target: { url: targetUrl(targetPath) },
        retry: { max_attempts: 1 },
      },
    });
    await api("POST", `/v1/jobs/${job.body.id}/trigger`, { token: tenant.key });
    const good = await vi.waitFor(async () => {
      const res = await api<{ data: { id: string }[] }>("GET", `/v1/dead-letters?job_id=${job.body.id}`, {
        token: tenant.key,
      });
      expect(res.body.data).toHaveLength(1);
      return res.body.data[0]!.id;
    }, WAIT);
    // A letter already redriven, and one whose run no shard knows.
    const redriven = await seedDeadLetter({
      tenantId: tenant.tenantId,
      jobId: job.body.id,
      runId: "run_gone_1",
    });
    await env.DB.prepare("UPDATE dead_letters SET redriven_at_ms = ? WHERE id = ?")
      .bind(Date.now(), redriven)
      .run();
    const orphan = await seedDeadLetter({
      tenantId: tenant.tenantId,
      jobId: job.body.id,
      runId: "run_gone_2",
    });

    const res = await client.post("/console/dead-letters/redrive", {
      _csrf: await client.csrf(),
      id: [good, redriven, orphan],
      confirmed: "1",
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain("Redrove 1 of 3");
    const cell = (id: string) => {
      const start = res.text.indexOf(`data-redrive-id="${id}"`);
      return res.text.slice(start, res.text.indexOf("</tr>", start));
    };
    expect(cell(good)).toContain('data-redrive-result="redriven"');
    expect(cell(good)).toContain("attempt 2");
    expect(cell(redriven)).toContain('data-redrive-result="failed"');
    expect(cell(redriven)).toContain("already_redriven");
    expect(cell(orphan)).toContain('data-redrive-result="failed"');
    expect(cell(orphan)).toContain("run_not_found");
    // The good one really went: its second attempt reached the target.
    await vi.waitFor(async () => expect(await targetCalls(targetPath)).toHaveLength(2), WAIT);
  });
});
