// Tenant isolation, tried from tenant B against everything tenant A owns: a succeeded run, a
// dead letter and its alert. Every by-id answer must be the 404 an id that never existed gets.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, type JsonResponse, type TenantWithKey } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";
import { targetUrl, WAIT } from "../helpers/scheduling";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface Owned {
  jobId: string;
  jobName: string;
  runId: string;
  failedJobId: string;
  failedRunId: string;
  deadLetterId: string;
  alertId: string;
}

let a: TenantWithKey;
let b: TenantWithKey;
let owned: Owned;

async function createJob(t: TenantWithKey, name: string, path: string, extra: Record<string, unknown> = {}) {
  const res = await api<{ id: string }>("POST", "/v1/jobs", {
    token: t.key,
    body: {
      name,
      schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
      target: { url: targetUrl(path) },
      ...extra,
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function triggerAndSettle(t: TenantWithKey, jobId: string, state: string): Promise<string> {
  const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${jobId}/trigger`, { token: t.key });
  expect(trigger.status).toBe(202);
  await vi.waitFor(async () => {
    const run = await api<{ state: string }>("GET", `/v1/runs/${trigger.body.run_id}`, { token: t.key });
    expect(run.body.state).toBe(state);
  }, WAIT);
  return trigger.body.run_id;
}

async function firstOf<T extends { id: string }>(t: TenantWithKey, path: string): Promise<T> {
  return vi.waitFor(async () => {
    const res = await api<{ data: T[] }>("GET", path, { token: t.key });
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0] as T;
  }, WAIT);
}

beforeAll(async () => {
  a = await createTenantWithKey("iso-a");
  b = await createTenantWithKey("iso-b");
  const tag = crypto.randomUUID();
  const jobName = `a-secret-job-${tag}`;
  const jobId = await createJob(a, jobName, `/ok/iso-${tag}`);
  const runId = await triggerAndSettle(a, jobId, "SUCCEEDED");
  const failedJobId = await createJob(a, `a-failing-${tag}`, `/status/404/iso-${tag}`, {
    retry: { max_attempts: 1 },
  });
  const failedRunId = await triggerAndSettle(a, failedJobId, "DEAD_LETTERED");
  const letter = await firstOf<{ id: string }>(a, "/v1/dead-letters");
  const alert = await firstOf<{ id: string }>(a, "/v1/alerts");
  owned = { jobId, jobName, runId, failedJobId, failedRunId, deadLetterId: letter.id, alertId: alert.id };
  await createJob(b, "b-own-job", `/ok/iso-b-${tag}`);
}, 60_000);

/** An id of the same shape that names nothing. */
function lookalike(id: string): string {
  return `${id.slice(0, -6)}${id.endsWith("ZZZZZZ") ? "YYYYYY" : "ZZZZZZ"}`;
}

type Probe = [method: string, path: (ids: Owned) => string, body?: unknown];

const BY_ID: Probe[] = [
  ["GET", (ids) => `/v1/jobs/${ids.jobId}`],
  ["PATCH", (ids) => `/v1/jobs/${ids.jobId}`, { name: "taken-over" }],
  ["DELETE", (ids) => `/v1/jobs/${ids.jobId}`],
  ["POST", (ids) => `/v1/jobs/${ids.jobId}/pause`],
  ["POST", (ids) => `/v1/jobs/${ids.jobId}/resume`],
  ["POST", (ids) => `/v1/jobs/${ids.jobId}/trigger`],
  [
    "POST",
    (ids) => `/v1/jobs/${ids.jobId}/backfill`,
    { from: "2026-01-01T00:00:00Z", to: "2026-03-01T00:00:00Z" },
  ],
  ["GET", (ids) => `/v1/jobs/${ids.jobId}/runs`],
  ["GET", (ids) => `/v1/runs/${ids.runId}`],
  ["POST", (ids) => `/v1/runs/${ids.failedRunId}/retry`],
  ["POST", (ids) => `/v1/dead-letters/${ids.deadLetterId}/redrive`],
  ["POST", (ids) => `/v1/alerts/${ids.alertId}/ack`],
  ["POST", (ids) => `/v1/alerts/${ids.alertId}/resolve`],
];

function unknownIds(ids: Owned): Owned {
  const entries = Object.entries(ids).map(([name, value]) => [name, lookalike(value)]);
  return Object.fromEntries(entries) as Owned;
}

/** What may differ between two 404s: only the id the caller sent, echoed in `detail`. */
function normalized(res: JsonResponse, id: string) {
  const body = { ...res.body, detail: String(res.body.detail).replaceAll(id, "<id>") };
  return { status: res.status, contentType: res.headers.get("content-type"), body };
}

async function expectIndistinguishable(headers: Record<string, string>, token: string) {
  const unknown = unknownIds(owned);
  for (const [method, path, body] of BY_ID) {
    const theirs = await api(method, path(owned), { token, headers, body });
    const nobodys = await api(method, path(unknown), { token, headers, body });
    const label = `${method} ${path(owned)}`;
    expect(theirs.status, label).toBe(404);
    const sentId = path(owned).split("/")[3] as string;
    expect(normalized(theirs, sentId), label).toEqual(normalized(nobodys, lookalike(sentId)));
  }
}

async function expectAUntouched() {
  const job = await api<{ version: number; name: string; status: string }>("GET", `/v1/jobs/${owned.jobId}`, {
    token: a.key,
  });
  expect(job.body).toMatchObject({ version: 1, name: owned.jobName, status: "ACTIVE" });
  const runs = await api<{ data: unknown[] }>("GET", `/v1/jobs/${owned.jobId}/runs`, { token: a.key });
  expect(runs.body.data).toHaveLength(1);
  const letter = await firstOf<{ id: string; redriven_at: string | null }>(a, "/v1/dead-letters");
  expect(letter.redriven_at).toBeNull();
  const alert = await firstOf<{ id: string; state: string }>(a, "/v1/alerts");
  expect(alert).toMatchObject({ id: owned.alertId, state: "open" });
}

const LISTS = [
  "/v1/jobs",
  "/v1/jobs?name=a-secret",
  "/v1/runs",
  "/v1/dead-letters",
  "/v1/alerts",
  "/v1/stats",
  () => `/v1/runs?job_id=${owned.jobId}`,
  () => `/v1/dead-letters?job_id=${owned.failedJobId}`,
];

async function expectListsClean(token: string, headers: Record<string, string> = {}) {
  const secrets = [...Object.values(owned), a.tenantId];
  for (const entry of LISTS) {
    const path = typeof entry === "string" ? entry : entry();
    const res = await api("GET", path, { token, headers });
    expect(res.status, path).toBe(200);
    const text = JSON.stringify(res.body);
    for (const secret of secrets) expect(text, `${path} leaks ${secret}`).not.toContain(secret);
  }
}

describe("tenant isolation", () => {
  it("answers B's key on every by-id route of A's resources exactly like an unknown id", async () => {
    await expectIndistinguishable({}, b.key);
    await expectAUntouched();
  });

  it("answers the admin acting as B exactly like an unknown id too", async () => {
    await expectIndistinguishable({ "edgecron-tenant": b.tenantId }, "test-admin-token");
    await expectAUntouched();
  });

  it("keeps A's items out of B's lists, and A's counts out of B's stats", async () => {
    await expectListsClean(b.key);
    await expectListsClean("test-admin-token", { "edgecron-tenant": b.tenantId });
    const stats = await api<{
      jobs_by_status: Record<string, number>;
      runs_by_state: Record<string, number>;
      per_minute: { triggers: number; failures: number }[];
      lateness_ms: { count: number };
    }>("GET", "/v1/stats", { token: b.key });
    expect(stats.body.jobs_by_status.ACTIVE).toBe(1);
    expect(Object.values(stats.body.runs_by_state).reduce((sum, n) => sum + n, 0)).toBe(0);
    expect(stats.body.per_minute.every((minute) => minute.triggers === 0 && minute.failures === 0)).toBe(
      true,
    );
    expect(stats.body.lateness_ms.count).toBe(0);
    const theirs = await api<{ runs_by_state: Record<string, number> }>("GET", "/v1/stats", { token: a.key });
    expect(theirs.body.runs_by_state).toMatchObject({ SUCCEEDED: 1, DEAD_LETTERED: 1 });
    const tenant = await api("GET", `/v1/tenants/${a.tenantId}`, { token: b.key });
    expect(tenant.status).toBe(404);
  });

  it("scopes Idempotency-Key per tenant: B reusing A's key creates its own job, never A's replay", async () => {
    const body = {
      name: "idem",
      schedule: { type: "once", at: "2099-01-01T00:00:00Z" },
      target: { url: targetUrl("/ok/idem") },
    };
    const headers = { "idempotency-key": `shared-${crypto.randomUUID()}` };
    const theirs = await api<{ id: string }>("POST", "/v1/jobs", { token: a.key, body, headers });
    const same = await api<{ id: string }>("POST", "/v1/jobs", { token: b.key, body, headers });
    const other = await api<{ id: string }>("POST", "/v1/jobs", {
      token: b.key,
      body: { ...body, name: "x" },
      headers,
    });
    expect([theirs.status, same.status]).toEqual([201, 201]);
    expect(same.body.id).not.toBe(theirs.body.id);
    expect(same.headers.get("idempotent-replayed")).toBeNull();
    expect(other.status).toBe(422);
    expect(JSON.stringify(other.body)).not.toContain(theirs.body.id);
    await api("DELETE", `/v1/jobs/${same.body.id}`, { token: b.key });
  });

  it("shows B's console session none of A's data and refuses to redrive A's dead letter", async () => {
    const client = new ConsoleClient();
    await client.signIn(b.key);
    const detail = await client.get(`/console/jobs/${owned.jobId}`);
    expect(detail.status).toBe(404);
    expect(detail.text).not.toContain(owned.jobName);
    const runs = await client.get(`/console/runs?job_id=${owned.jobId}`);
    expect(runs.text).not.toContain(owned.runId);
    const letters = await client.get("/console/dead-letters");
    expect(letters.text).not.toContain(owned.deadLetterId);
    const redrive = await client.post("/console/dead-letters/redrive", {
      _csrf: await client.csrf(),
      one: owned.deadLetterId,
      confirmed: "1",
    });
    expect(redrive.status).toBe(404);
    await expectAUntouched();
  });
});

describe("keys", () => {
  it("refuses a revoked key at once and ends its console session", async () => {
    const extra = await api<{ id: string; key: string }>("POST", "/v1/api-keys", {
      body: { tenant_id: b.tenantId },
    });
    const client = new ConsoleClient();
    await client.signIn(extra.body.key);
    expect((await api("GET", "/v1/jobs", { token: extra.body.key })).status).toBe(200);
    expect((await api("DELETE", `/v1/api-keys/${extra.body.id}`)).status).toBe(200);
    const refused = await api("GET", "/v1/jobs", { token: extra.body.key });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    const page = await client.get("/console/jobs");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/console/login");
    expect(client.jar.size).toBe(0);
  });

  it("stores no key in clear in any column of any D1 table", async () => {
    const { results: tables } = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    ).all<{ name: string }>();
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(["api_keys", "tenants", "jobs"]),
    );
    for (const { name } of tables) {
      const { results } = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
      const dump = JSON.stringify(results);
      for (const key of [a.key, b.key]) {
        expect(dump, name).not.toContain(key);
        expect(dump, name).not.toContain(key.slice(3));
      }
    }
  });
});

describe("logs", () => {
  afterEach(() => vi.restoreAllMocks());

  it("never write a key, on success, refusal or failure", async () => {
    const spies = (["log", "error", "warn", "info", "debug"] as const).map((level) =>
      vi.spyOn(console, level),
    );
    const revoked = await api<{ id: string; key: string }>("POST", "/v1/api-keys", {
      body: { tenant_id: a.tenantId },
    });
    await api("DELETE", `/v1/api-keys/${revoked.body.id}`);
    const keys = [a.key, b.key, revoked.body.key];
    for (const token of keys) {
      await api("GET", "/v1/me", { token });
      await api("GET", `/v1/jobs/${owned.jobId}`, { token });
      await api("POST", "/v1/jobs", { token, body: "{not json" });
      await api("GET", "/v1/jobs", { token: `${token} ` });
    }
    await triggerAndSettle(a, owned.jobId, "SUCCEEDED");
    await new ConsoleClient().signIn(a.key);
    const logged = JSON.stringify(
      spies.flatMap((spy) => spy.mock.calls),
      (_k, value: unknown) => (value instanceof Error ? `${value.message} ${value.stack}` : value),
    );
    for (const key of keys) {
      expect(logged).not.toContain(key);
      expect(logged).not.toContain(key.slice(3));
    }
  });
});
