// Server-side request forgery, tried from every door: the API in production mode (the default in
// wrangler.toml; this suite's vitest config turns private targets on, so production is driven by
// calling the worker with ALLOW_PRIVATE_TARGETS "false"), the target call itself, and redirects.
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { callTarget } from "../../src/delivery/target-call";
import worker from "../../src/index";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, api, BASE, createTenantWithKey, jobBody } from "../helpers/api";
import { targetCalls, targetUrl, WAIT } from "../helpers/scheduling";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

const PRODUCTION_ENV = { ...env, ALLOW_PRIVATE_TARGETS: "false" };

interface Problem {
  status: number;
  code: string;
  errors?: { path: string; message: string }[];
}

/** A JSON request to the worker as deployed: private targets refused. */
async function production<T = Problem>(
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const request = new Request<unknown, IncomingRequestCfProperties>(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await worker.fetch(request, PRODUCTION_ENV, createExecutionContext());
  return { status: res.status, body: (await res.json()) as T };
}

async function countRows(table: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>();
  return row?.n ?? 0;
}

const PRIVATE_URLS = [
  "http://127.0.0.1:8080/hook",
  "http://127.1/hook",
  "http://2130706433/hook",
  "http://0x7f.0.0.1/hook",
  "http://10.1.2.3/hook",
  "http://172.16.0.1/hook",
  "http://192.168.1.10/hook",
  "http://100.64.0.1/hook",
  "http://169.254.169.254/latest/meta-data/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://localhost:3000/hook",
  "http://api.localhost/hook",
  "http://[::1]/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://[fe80::1]/hook",
  "http://[fd00::1]/hook",
  "http://0.0.0.0/hook",
  // Names that resolve to loopback, or to the address they spell, refused offline.
  "http://127.0.0.1.nip.io:8080/hook",
  "http://localtest.me/hook",
  "http://app.localtest.me/hook",
  "http://10-0-0-1.sslip.io/hook",
  "http://app.127.0.0.1.example.com/hook",
  "http://localhost./hook",
  // Special-purpose ranges beyond private and loopback (IANA registries).
  "http://[::ffff:0:0]/hook",
  "http://[::ffff:8.8.8.8]/hook",
  "http://[64:ff9b:1::a00:1]/hook",
  "http://[100::1]/hook",
  "http://192.0.2.1/hook",
  "http://192.88.99.1/hook",
  "http://198.51.100.1/hook",
  "http://[2001:db8::1]/hook",
  "http://0177.0.0.1/hook",
];
const ALWAYS_REFUSED = [
  "https://user:secret@example.com/hook",
  "file:///etc/passwd",
  "gopher://example.com/",
];

describe("SSRF at the API in production mode", () => {
  it("refuses every private, loopback, link-local and metadata target on create, naming target.url", async () => {
    const t = await createTenantWithKey("ssrf");
    const before = await countRows("jobs");
    for (const url of [...PRIVATE_URLS, ...ALWAYS_REFUSED]) {
      const res = await production("POST", "/v1/jobs", t.key, jobBody({ target: { url } }));
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe("validation_failed");
      expect(
        res.body.errors?.map((error) => error.path),
        url,
      ).toEqual(["target.url"]);
    }
    const onFailure = await production(
      "POST",
      "/v1/jobs",
      t.key,
      jobBody({ on_failure: "http://169.254.169.254/" }),
    );
    expect(onFailure.status).toBe(400);
    expect(onFailure.body.errors?.map((error) => error.path)).toEqual(["on_failure"]);
    expect(await countRows("jobs")).toBe(before);
  });

  it("accepts a public target in production mode", async () => {
    const t = await createTenantWithKey("ssrf");
    const res = await production<{ id: string }>("POST", "/v1/jobs", t.key, jobBody());
    expect(res.status).toBe(201);
  });

  it("refuses private targets per item in a batch and on PATCH, leaving the job as it was", async () => {
    const t = await createTenantWithKey("ssrf");
    const batch = await production<{ created: number; results: { status: number; error?: Problem }[] }>(
      "POST",
      "/v1/jobs/batch",
      t.key,
      { jobs: [jobBody(), jobBody({ target: { url: "http://10.0.0.1/" } })] },
    );
    expect(batch.status).toBe(200);
    expect(batch.body.created).toBe(1);
    expect(batch.body.results[1]?.error?.errors?.map((error) => error.path)).toEqual(["jobs.1.target.url"]);
    const created = await production<{ id: string; version: number }>("POST", "/v1/jobs", t.key, jobBody());
    const patched = await production("PATCH", `/v1/jobs/${created.body.id}`, t.key, {
      target: { url: "http://[::1]:8787/v1/tenants" },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.errors?.map((error) => error.path)).toEqual(["target.url"]);
    const after = await api<{ version: number; target: { url: string } }>(
      "GET",
      `/v1/jobs/${created.body.id}`,
      { token: t.key },
    );
    expect(after.body.version).toBe(created.body.version);
    expect(after.body.target.url).toBe("https://example.com/hook");
  });

  it("refuses a private alert_webhook_url on tenant create and patch", async () => {
    const before = await countRows("tenants");
    const created = await production("POST", "/v1/tenants", ADMIN_TOKEN, {
      name: "ssrf-webhook",
      alert_webhook_url: "http://169.254.169.254/latest",
    });
    expect(created.status).toBe(400);
    expect(created.body.errors?.map((error) => error.path)).toEqual(["alert_webhook_url"]);
    expect(await countRows("tenants")).toBe(before);
    const t = await createTenantWithKey("ssrf");
    const patched = await production("PATCH", `/v1/tenants/${t.tenantId}`, ADMIN_TOKEN, {
      alert_webhook_url: "http://localhost/alerts",
    });
    expect(patched.status).toBe(400);
    expect(patched.body.errors?.map((error) => error.path)).toEqual(["alert_webhook_url"]);
    const tenant = await api<{ alert_webhook_url: string | null }>("GET", `/v1/tenants/${t.tenantId}`);
    expect(tenant.body.alert_webhook_url).toBeNull();
  });
});

describe("single-label host names in production mode", () => {
  it("refuses vm, db and redis in every URL field at create, naming each field, storing nothing", async () => {
    const t = await createTenantWithKey("ssrf");
    const jobsBefore = await countRows("jobs");
    const job = await production(
      "POST",
      "/v1/jobs",
      t.key,
      jobBody({ target: { url: "http://vm:8080/hook" }, on_failure: "http://db/failed" }),
    );
    expect(job.status).toBe(400);
    expect(job.body.errors?.map((error) => [error.path, error.message])).toEqual([
      ["target.url", expect.stringMatching(/vm is a single-label name/)],
      ["on_failure", expect.stringMatching(/db is a single-label name/)],
    ]);
    const message = await production("POST", "/v2/publish/https://example.com/hook", t.key, undefined, {
      "upstash-callback": "http://redis:6379/",
    });
    expect(message.status).toBe(400);
    expect(JSON.stringify(message.body)).toMatch(/redis is a single-label name/);
    expect(await countRows("jobs")).toBe(jobsBefore);
    const webhook = await production("PATCH", `/v1/tenants/${t.tenantId}`, ADMIN_TOKEN, {
      alert_webhook_url: "http://redis/alerts",
    });
    expect(webhook.status).toBe(400);
    expect(webhook.body.errors?.map((error) => error.path)).toEqual(["alert_webhook_url"]);
  });
});

describe("malformed host names at every entry point, whatever the mode", () => {
  it.each([
    ["production", production],
    ["private targets allowed", allowingPrivate],
  ] as const)("refuses vm.., localhost.., a..b and .. (%s), storing nothing", async (_mode, call) => {
    const t = await createTenantWithKey("empty-label");
    const jobsBefore = await countRows("jobs");
    const job = await call(
      "POST",
      "/v1/jobs",
      t.key,
      jobBody({ target: { url: "http://vm../hook" }, on_failure: "http://localhost../failed" }),
    );
    expect(job.status).toBe(400);
    expect(job.body.errors?.map((error) => [error.path, error.message])).toEqual([
      ["target.url", expect.stringMatching(/vm\.\. has an empty label/)],
      ["on_failure", expect.stringMatching(/localhost\.\. has an empty label/)],
    ]);
    const destination = await call("POST", "/v2/publish/http://a..b/hook", t.key, undefined);
    expect(destination.status).toBe(400);
    expect(JSON.stringify(destination.body)).toMatch(/a\.\.b has an empty label/);
    const callback = await call("POST", "/v2/publish/https://example.com/hook", t.key, undefined, {
      "upstash-failure-callback": "http://../",
    });
    expect(callback.status).toBe(400);
    expect(JSON.stringify(callback.body)).toMatch(/has an empty label/);
    expect(await countRows("jobs")).toBe(jobsBefore);
    const webhook = await call("PATCH", `/v1/tenants/${t.tenantId}`, ADMIN_TOKEN, {
      alert_webhook_url: "http://hooks..example.com/alerts",
    });
    expect(webhook.status).toBe(400);
    expect(webhook.body.errors?.map((error) => error.path)).toEqual(["alert_webhook_url"]);
  });
});

/** As `production`, with the suite's own setting (ALLOW_PRIVATE_TARGETS "true"). */
async function allowingPrivate<T = Problem>(
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await api<T>(method, path, { token, body, headers });
  return { status: res.status, body: res.body };
}

describe("SSRF at call time", () => {
  it("refuses a private target stored while it was allowed: permanent, and the target receives nothing", async () => {
    const path = `/ok/ssrf-call-time-${crypto.randomUUID()}`;
    const outcome = await callTarget({
      target: { type: "http", url: targetUrl(path), method: "POST", headers: {}, body: { a: 1 } },
      runId: "run_ssrf",
      jobId: "job_ssrf",
      scheduledAtMs: Date.now(),
      attempt: 1,
      idempotencyKey: "job_ssrf:now",
      secrets: ["s"],
      timeoutMs: 5_000,
      allowPrivate: false,
      nowMs: Date.now(),
    });
    expect(outcome).toMatchObject({ kind: "permanent", status: null });
    expect(outcome.kind === "permanent" && outcome.error).toContain("loopback");
    expect(await targetCalls(path)).toEqual([]);
  });

  it("does not follow a redirect: the run dead-letters as permanent and the redirect target is never called", async () => {
    const t = await createTenantWithKey("ssrf");
    const name = `ssrf-${crypto.randomUUID()}`;
    const job = await api<{ id: string }>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ target: { url: targetUrl(`/redirect/${name}`) }, retry: { max_attempts: 3 } }),
    });
    expect(job.status).toBe(201);
    const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${job.body.id}/trigger`, {
      token: t.key,
    });
    expect(trigger.status).toBe(202);
    const run = await vi.waitFor(async () => {
      const res = await api<{ state: string; attempt: number; target_status: number; error: string }>(
        "GET",
        `/v1/runs/${trigger.body.run_id}`,
        { token: t.key },
      );
      expect(res.body.state).toBe("DEAD_LETTERED");
      return res.body;
    }, WAIT);
    expect(run.attempt).toBe(1);
    expect(run.target_status).toBe(302);
    expect(await targetCalls(`/redirect/${name}`)).toHaveLength(1);
    expect(await targetCalls(`/ok/redirected/${name}`)).toEqual([]);
  });
});
