// Hundreds of invalid requests, generated deterministically across every route of docs/API.md:
// each must be a 4xx problem+json naming what is wrong, none a 5xx, and D1 must not change.
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, api, BASE, createTenantWithKey } from "../helpers/api";
import { allBadRequests, type BadRequest, type Fixtures } from "../helpers/bad-input-cases";
import { ConsoleClient, ORIGIN } from "../helpers/console-client";
import { targetUrl, WAIT } from "../helpers/scheduling";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

const SEED = 0x6ec2_0b06;
const TABLES = ["tenants", "api_keys", "jobs", "runs", "dead_letters", "alerts"];

/** Row count and a SHA-256 over every row of each table, in a stable order. */
async function snapshotD1(): Promise<Record<string, { rows: number; sha256: string }>> {
  const snapshot: Record<string, { rows: number; sha256: string }> = {};
  for (const table of TABLES) {
    const { results } = await env.DB.prepare(`SELECT * FROM ${table} ORDER BY id`).all();
    const bytes = new TextEncoder().encode(JSON.stringify(results));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const sha256 = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    snapshot[table] = { rows: results.length, sha256 };
  }
  return snapshot;
}

async function settledRun(key: string, jobId: string, state: string): Promise<string> {
  const trigger = await api<{ run_id: string }>("POST", `/v1/jobs/${jobId}/trigger`, { token: key });
  expect(trigger.status).toBe(202);
  await vi.waitFor(async () => {
    const run = await api<{ state: string }>("GET", `/v1/runs/${trigger.body.run_id}`, { token: key });
    expect(run.body.state).toBe(state);
  }, WAIT);
  return trigger.body.run_id;
}

/** The valid world the bad requests aim at: a tenant with a job, a run, a dead letter, an alert. */
async function createFixtures(): Promise<Fixtures> {
  const t = await createTenantWithKey("bad-input");
  const other = await createTenantWithKey("bad-input-other");
  const revoked = await createTenantWithKey("bad-input-revoked");
  await api("DELETE", `/v1/api-keys/${revoked.keyId}`);
  const job = (schedulePath: string, extra: Record<string, unknown> = {}) =>
    api<{ id: string }>("POST", "/v1/jobs", {
      token: t.key,
      body: {
        name: `fixture-${schedulePath}`,
        schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
        target: { url: targetUrl(schedulePath) },
        ...extra,
      },
    });
  const ok = (await job("/ok/bad-input-fixture")).body.id;
  const failing = (await job("/status/404/bad-input-fixture", { retry: { max_attempts: 1 } })).body.id;
  const runId = await settledRun(t.key, ok, "SUCCEEDED");
  await settledRun(t.key, failing, "DEAD_LETTERED");
  const deadLetterId = await vi.waitFor(async () => {
    const letters = await api<{ data: { id: string }[] }>("GET", "/v1/dead-letters", { token: t.key });
    const alerts = await api<{ data: unknown[] }>("GET", "/v1/alerts", { token: t.key });
    expect(alerts.body.data).toHaveLength(1);
    expect(letters.body.data).toHaveLength(1);
    return letters.body.data[0]?.id as string;
  }, WAIT);
  return {
    adminToken: ADMIN_TOKEN,
    tenantId: t.tenantId,
    key: t.key,
    keyId: t.keyId,
    otherKey: other.key,
    revokedKey: revoked.key,
    jobId: ok,
    runId,
    deadLetterId,
    targetUrl: targetUrl(""),
  };
}

let sent = 0;
/** What Cloudflare's edge attaches to a request it forwards (the fields a test needs: none). */
const ON_CLOUDFLARE = { colo: "TEST" } as unknown as IncomingRequestCfProperties;

/**
 * Each request as Cloudflare forwards it (`cf` set), from an address of its own: hundreds of bad
 * credentials from one address, or from none, would be throttled (429) after 20, which
 * test/integration/auth-throttle.test.ts holds; here each must get its own answer.
 */
async function send(request: BadRequest): Promise<Response> {
  const headers = new Headers(request.headers);
  if (request.authorization !== null) headers.set("authorization", request.authorization);
  sent += 1;
  headers.set("cf-connecting-ip", `2001:db8::${sent.toString(16)}`);
  const init = { method: request.method, headers, body: request.body, cf: ON_CLOUDFLARE };
  return worker.fetch(
    new Request<unknown, IncomingRequestCfProperties>(`${BASE}${request.path}`, init),
    env,
    createExecutionContext(),
  );
}

/** Everything wrong with one response, as readable strings (empty: the response is right). */
async function problemsOf(request: BadRequest, res: Response): Promise<string[]> {
  const wrong: string[] = [];
  if (res.status < 400 || res.status > 499) wrong.push(`status ${res.status}`);
  if (request.expectStatus !== undefined && res.status !== request.expectStatus) {
    wrong.push(`status ${res.status}, expected ${request.expectStatus}`);
  }
  if (res.headers.get("content-type") !== "application/problem+json") {
    wrong.push(`content-type ${res.headers.get("content-type")}`);
  }
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return [...wrong, `body is not JSON: ${text.slice(0, 80)}`];
  }
  for (const field of ["type", "title", "detail"]) {
    if (typeof body[field] !== "string") wrong.push(`no ${field}`);
  }
  if (body.status !== res.status) wrong.push(`body status ${String(body.status)}`);
  const errors = body.errors as { path?: unknown; message?: unknown }[] | undefined;
  if (body.code === "validation_failed") {
    const wellFormed =
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((error) => typeof error.path === "string" && typeof error.message === "string");
    if (!wellFormed) wrong.push("validation problem without errors[]");
  }
  if (request.expectPath !== undefined) {
    const expected = request.expectPath;
    const paths = (errors ?? []).map((error) => String(error.path));
    if (!paths.some((path) => path === expected || path.startsWith(`${expected}.`))) {
      wrong.push(
        `errors name ${JSON.stringify(paths)}, not ${expected} (${String(body.detail).slice(0, 80)})`,
      );
    }
  }
  return wrong;
}

describe("bad input", () => {
  let fixtures: Fixtures;
  beforeAll(async () => {
    fixtures = await createFixtures();
  }, 60_000);

  it("answers every invalid request with a 4xx problem, never a 5xx, and stores nothing", async () => {
    const requests = allBadRequests(fixtures, SEED);
    expect(requests.length).toBeGreaterThanOrEqual(500);
    const before = await snapshotD1();
    const failures: string[] = [];
    const byClass = { "4xx": 0, "5xx": 0, other: 0 };
    for (const request of requests) {
      const res = await send(request);
      const bucket = res.status >= 500 ? "5xx" : res.status >= 400 ? "4xx" : "other";
      byClass[bucket] += 1;
      const wrong = await problemsOf(request, res);
      if (wrong.length > 0) failures.push(`${request.label}: ${wrong.join("; ")}`);
    }
    // Shards write run history behind the response: give a stray accepted request time to land.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await snapshotD1();
    const unchanged = JSON.stringify(after) === JSON.stringify(before);
    console.log(
      `[bad-input] requests=${requests.length} 4xx=${byClass["4xx"]} 5xx=${byClass["5xx"]} d1_unchanged=${unchanged}`,
    );
    expect(failures).toEqual([]);
    expect(byClass["5xx"]).toBe(0);
    expect(after).toEqual(before);
  }, 180_000);

  it("answers a console form the runtime cannot parse with a 400, not a 500", async () => {
    const client = new ConsoleClient();
    await client.signIn(fixtures.key);
    const csrf = await client.csrf();
    for (const path of ["/console/jobs", "/console/jobs/preview", "/console/dead-letters/redrive"]) {
      const res = await client.send(path, {
        method: "POST",
        body: "not a multipart body",
        headers: { "content-type": "multipart/form-data; boundary=zz", origin: ORIGIN, "x-csrf-token": csrf },
      });
      expect(res.status, path).toBe(400);
    }
  });

  it("generates the same requests from the same seed", () => {
    const labels = (seed: number) => allBadRequests(fixtures, seed).map((request) => request.label);
    expect(labels(SEED)).toEqual(labels(SEED));
    expect(labels(SEED)).not.toEqual(labels(SEED + 1));
  });
});
