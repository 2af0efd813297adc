import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clearFaults, injectFaults } from "../../src/service/fault-injection";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody } from "../helpers/api";
import { countJobs, jobsDb } from "../helpers/job-databases";

// These tests leave scheduled jobs on their shards: delete the alarms after each test.
disarmShardsAfterEach();

interface Job {
  id: string;
  name: string;
  status: string;
  version: number;
  shard: number;
  schedule: Record<string, unknown>;
  next_fire_times: string[];
  [field: string]: unknown;
}
interface ProblemBody {
  status: number;
  code: string;
  errors?: { path: string; message: string }[];
}

const paths = (problem: ProblemBody) => (problem.errors ?? []).map((e) => e.path).sort();

async function jobCount(tenantId: string): Promise<number> {
  return countJobs("WHERE tenant_id = ?", tenantId);
}

describe("POST /v1/jobs", () => {
  it("refuses ill-formed Unicode (a lone surrogate) in any string or key, and stores nothing", async () => {
    const t = await createTenantWithKey();
    const before = await countJobs();
    for (const body of [
      JSON.stringify(jobBody({ name: "bad-\ud800" })),
      '{"name":"x\\udfff","schedule":{"type":"once","delay":"1h"},"target":{"url":"https://example.com"}}',
      '{"name":"ok","schedule":{"type":"once","delay":"1h"},"target":{"url":"https://example.com","headers":{"\\ud800":"v"}}}',
    ]) {
      const res = await api<{ code: string }>("POST", "/v1/jobs", { token: t.key, body });
      expect(res.status, body).toBe(400);
      expect(res.body.code).toBe("validation_failed");
    }
    expect(await countJobs()).toBe(before);
  });

  it("creates a job, normalizes its schedule and returns the resource", async () => {
    const t = await createTenantWithKey();
    const before = Date.now();
    const res = await api<Job>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ name: "renew-1", schedule: { type: "once", delay: "2h" } }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`/v1/jobs/${res.body.id}`);
    expect(res.headers.get("etag")).toBe('"1"');
    const job = res.body;
    expect(job.id).toMatch(/^job_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(job).toMatchObject({
      name: "renew-1",
      status: "ACTIVE",
      version: 1,
      overlap: "allow",
      timeout: "30s",
    });
    expect(job.schedule.type).toBe("once");
    expect(job.schedule.delay).toBeUndefined();
    const atMs = Date.parse(job.schedule.at as string);
    expect(atMs).toBeGreaterThanOrEqual(before + 7_200_000);
    expect(atMs).toBeLessThan(Date.now() + 7_200_000 + 1);
    expect(job.schedule.at).toBe(new Date(atMs).toISOString());
    expect(job.target).toEqual({
      type: "http",
      url: "https://example.com/hook",
      method: "POST",
      headers: {},
    });
    expect(Array.isArray(job.next_fire_times)).toBe(true);
    expect(job.shard).toBeGreaterThanOrEqual(0);
    expect(job.shard).toBeLessThan(16);
    expect((await api<Job>("GET", `/v1/jobs/${job.id}`, { token: t.key })).body).toEqual(job);
  });

  it("anchors an interval at start_at, or at creation time without one", async () => {
    const t = await createTenantWithKey();
    const start = "2030-01-01T00:00:00+02:00";
    const withStart = await api<Job>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ schedule: { type: "interval", every: "15m" }, start_at: start }),
    });
    expect(withStart.status).toBe(201);
    expect(withStart.body.schedule).toEqual({
      type: "interval",
      every: "15m",
      anchor: "2029-12-31T22:00:00.000Z",
    });
    expect(withStart.body.start_at).toBe("2029-12-31T22:00:00.000Z");
    const before = Date.now();
    const plain = await api<Job>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ schedule: { type: "interval", every: 60000 } }),
    });
    const anchorMs = Date.parse(plain.body.schedule.anchor as string);
    expect(anchorMs).toBeGreaterThanOrEqual(before);
    expect(anchorMs).toBeLessThanOrEqual(Date.now());
  });

  it("answers 201 with the row in D1 at synced_version 0 when the shard is unreachable (the outbox state)", async () => {
    const t = await createTenantWithKey();
    const shards = Array.from({ length: Number(env.SHARD_COUNT) }, (_, shard) => shard);
    // Every RPC fails until cleared: a claim from an earlier test's run in the background must not
    // use up the fault meant for this push.
    await Promise.all(shards.map((shard) => injectFaults(env, shard, { failClaims: 1_000 })));
    const res = await api<Job>("POST", "/v1/jobs", { token: t.key, body: jobBody() });
    await Promise.all(shards.map((shard) => clearFaults(env, shard)));
    expect(res.status).toBe(201);
    const row = await jobsDb(res.body.id)
      .prepare("SELECT * FROM jobs WHERE id = ?")
      .bind(res.body.id)
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({ tenant_id: t.tenantId, version: 1, synced_version: 0, status: "ACTIVE" });
    expect(JSON.parse(row?.spec_json as string).name).toBe(res.body.name);
  });

  it("returns the next 5 fire times", async () => {
    const t = await createTenantWithKey();
    const res = await api<Job>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ schedule: { type: "interval", every: "1h", anchor: "2026-01-01T00:00:00Z" } }),
    });
    expect(res.body.next_fire_times).toHaveLength(5);
    for (const time of res.body.next_fire_times) expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    const more = await api<Job>("GET", `/v1/jobs/${res.body.id}?next=12`, { token: t.key });
    expect(more.body.next_fire_times).toHaveLength(12);
  });

  it("names every invalid field and stores nothing", async () => {
    const t = await createTenantWithKey();
    const res = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ name: "", target: { url: "ftp://example.com" }, timeout: "1ms" }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body.code).toBe("validation_failed");
    expect(paths(res.body)).toEqual(["name", "target.url", "timeout"]);
    expect(await jobCount(t.tenantId)).toBe(0);
  });

  it("rejects unknown fields, wrong types, bad schedules and past one-shots with their paths", async () => {
    const t = await createTenantWithKey();
    const cases: [Record<string, unknown>, string[]][] = [
      [jobBody({ colour: "red" }), ["colour"]],
      [jobBody({ target: { url: "https://x.test", extra: 1 } }), ["target.extra"]],
      [jobBody({ max_runs: "ten", overlap: 3 }), ["max_runs", "overlap"]],
      [
        jobBody({ schedule: { type: "cron", expr: "0 9 * * *", timezone: "Mars/Olympus" } }),
        ["schedule.timezone"],
      ],
      [jobBody({ schedule: { type: "cron", expr: "not a cron", timezone: "UTC" } }), ["schedule.expr"]],
      [jobBody({ schedule: { type: "interval", every: "10ms" } }), ["schedule.every"]],
      [jobBody({ schedule: { type: "weekly" } }), ["schedule.type"]],
      [jobBody({ schedule: { type: "once", at: "2001-01-01T00:00:00Z" } }), ["schedule.at"]],
      [jobBody({ start_at: "2031-01-01T00:00:00Z", end_at: "2030-01-01T00:00:00Z" }), ["end_at"]],
      [jobBody({ target: { url: "https://x.test", body: "x".repeat(110_000) } }), ["target.body"]],
    ];
    for (const [body, expected] of cases) {
      const res = await api<ProblemBody>("POST", "/v1/jobs", { token: t.key, body });
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(paths(res.body)).toEqual(expected);
    }
    const missing = await api<ProblemBody>("POST", "/v1/jobs", { token: t.key, body: {} });
    expect(paths(missing.body)).toEqual(["name", "schedule", "target"]);
    const proto = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: JSON.stringify(jobBody()).replace("{", '{"__proto__": {"admin": true},'),
    });
    expect(paths(proto.body)).toEqual(["__proto__"]);
    const notObject = await api<ProblemBody>("POST", "/v1/jobs", { token: t.key, body: [1, 2] });
    expect(notObject.status).toBe(400);
    expect(await jobCount(t.tenantId)).toBe(0);
  });

  it("refuses malformed JSON and non-JSON bodies without storing anything", async () => {
    const t = await createTenantWithKey();
    const truncated = JSON.stringify(jobBody()).slice(0, 40);
    const bad = await api<ProblemBody>("POST", "/v1/jobs", { token: t.key, body: truncated });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_json");
    const form = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: JSON.stringify(jobBody()),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(await jobCount(t.tenantId)).toBe(0);
  });

  it("replays an idempotent create and refuses the key with another body", async () => {
    const t = await createTenantWithKey();
    const body = jobBody({ name: "idem", metadata: { a: 1, b: 2 } });
    const headers = { "idempotency-key": "create-idem-1" };
    const first = await api<Job>("POST", "/v1/jobs", { token: t.key, body, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // Same body with keys in another order is the same request.
    const reordered = {
      metadata: { b: 2, a: 1 },
      target: body.target,
      schedule: body.schedule,
      name: body.name,
    };
    const again = await api<Job>("POST", "/v1/jobs", { token: t.key, body: reordered, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    const conflict = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: { ...body, name: "other" },
      headers,
    });
    expect(conflict.status).toBe(422);
    expect(conflict.body.code).toBe("idempotency_conflict");
    expect(await jobCount(t.tenantId)).toBe(1);
    // Keys are per tenant.
    const other = await createTenantWithKey();
    const elsewhere = await api<Job>("POST", "/v1/jobs", { token: other.key, body, headers });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it("creates one job for concurrent creates with one Idempotency-Key", async () => {
    const t = await createTenantWithKey();
    const body = jobBody();
    const headers = { "idempotency-key": "concurrent-1" };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api<Job>("POST", "/v1/jobs", { token: t.key, body, headers })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await jobCount(t.tenantId)).toBe(1);
  });

  it("lets the admin act for a tenant with Edgecron-Tenant", async () => {
    const t = await createTenantWithKey();
    const res = await api<Job>("POST", "/v1/jobs", {
      body: jobBody(),
      headers: { "edgecron-tenant": t.tenantId },
    });
    expect(res.status).toBe(201);
    expect((await api("GET", `/v1/jobs/${res.body.id}`, { token: t.key })).status).toBe(200);
  });
});

describe("POST /v1/jobs/batch", () => {
  it("creates the valid items and reports each bad one with jobs.N paths", async () => {
    const t = await createTenantWithKey();
    const jobs = Array.from({ length: 200 }, (_, i) => jobBody({ name: `batch-${i}` }));
    jobs[3] = jobBody({ schedule: { type: "cron", expr: "0 9 * * *", timezone: "Nowhere/City" } });
    jobs[50] = { name: "x" };
    jobs[199] = jobBody({ bogus: true });
    const res = await api<{
      created: number;
      failed: number;
      results: { index: number; status: number; job?: Job; error?: ProblemBody }[];
    }>("POST", "/v1/jobs/batch", { token: t.key, body: { jobs } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 197, failed: 3 });
    expect(res.body.results).toHaveLength(200);
    expect(res.body.results.map((r) => r.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(res.body.results[3]?.status).toBe(400);
    expect(paths(res.body.results[3]?.error as ProblemBody)).toEqual(["jobs.3.schedule.timezone"]);
    expect(paths(res.body.results[50]?.error as ProblemBody)).toEqual(["jobs.50.schedule", "jobs.50.target"]);
    expect(paths(res.body.results[199]?.error as ProblemBody)).toEqual(["jobs.199.bogus"]);
    expect(res.body.results[0]?.job?.name).toBe("batch-0");
    expect(await jobCount(t.tenantId)).toBe(197);
    const ids = res.body.results.flatMap((r) => (r.job ? [r.job.id] : []));
    expect(new Set(ids).size).toBe(197);
  }, 30_000);

  it("refuses more than 1000 jobs naming `jobs`, and stores nothing", async () => {
    const t = await createTenantWithKey();
    const jobs = Array.from({ length: 1001 }, (_, i) => jobBody({ name: `big-${i}` }));
    const res = await api<ProblemBody>("POST", "/v1/jobs/batch", { token: t.key, body: { jobs } });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(["jobs"]);
    expect(await jobCount(t.tenantId)).toBe(0);
  }, 30_000);

  it("replays a batch sent again with its Idempotency-Key, creating nothing, and refuses the key with another body", async () => {
    const t = await createTenantWithKey();
    const jobs: Record<string, unknown>[] = Array.from({ length: 5 }, (_, i) =>
      jobBody({ name: `idem-batch-${i}` }),
    );
    jobs[2] = { name: "missing everything" };
    const headers = { "idempotency-key": "batch-idem-1" };
    type BatchBody = {
      created: number;
      failed: number;
      results: { index: number; status: number; job?: Job }[];
    };
    const first = await api<BatchBody>("POST", "/v1/jobs/batch", { token: t.key, body: { jobs }, headers });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created: 4, failed: 1 });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await api<BatchBody>("POST", "/v1/jobs/batch", { token: t.key, body: { jobs }, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toMatchObject({ created: 4, failed: 1 });
    expect(again.body.results.map((r) => [r.status, r.job?.id])).toEqual(
      first.body.results.map((r) => [r.status, r.job?.id]),
    );
    expect(await jobCount(t.tenantId)).toBe(4);
    const conflict = await api<ProblemBody>("POST", "/v1/jobs/batch", {
      token: t.key,
      body: { jobs: jobs.slice(0, 4) },
      headers,
    });
    expect(conflict.status).toBe(422);
    expect(conflict.body.code).toBe("idempotency_conflict");
    // A single create's key never meets a batch item's, even one spelled like it.
    const single = await api<Job>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody(),
      headers: { "idempotency-key": "batch-idem-1" },
    });
    expect(single.status).toBe(201);
    expect(await jobCount(t.tenantId)).toBe(5);
  });

  it("creates each job once for concurrent batches with one Idempotency-Key", async () => {
    const t = await createTenantWithKey();
    const jobs = Array.from({ length: 20 }, (_, i) => jobBody({ name: `race-${i}` }));
    const headers = { "idempotency-key": "batch-race-1" };
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        api<{ created: number; results: { job?: Job }[] }>("POST", "/v1/jobs/batch", {
          token: t.key,
          body: { jobs },
          headers,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const idLists = results.map((r) => r.body.results.map((item) => item.job?.id).join(","));
    expect(new Set(idLists).size).toBe(1);
    expect(await jobCount(t.tenantId)).toBe(20);
  });

  it("creates 1000 jobs in one call", async () => {
    const t = await createTenantWithKey();
    const jobs = Array.from({ length: 1000 }, (_, i) => jobBody({ name: `k-${i}` }));
    const res = await api<{ created: number }>("POST", "/v1/jobs/batch", { token: t.key, body: { jobs } });
    expect(res.body.created).toBe(1000);
    expect(await jobCount(t.tenantId)).toBe(1000);
  }, 30_000);
});

describe("GET /v1/jobs", () => {
  it("pages through 120 jobs newest first with a cursor, with status and name filters", async () => {
    const t = await createTenantWithKey();
    const jobs = Array.from({ length: 120 }, (_, i) => jobBody({ name: `${i % 2 ? "odd" : "even"}_${i}` }));
    await api("POST", "/v1/jobs/batch", { token: t.key, body: { jobs } });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : "";
      const page = await api<{ data: Job[]; next_cursor: string | null }>(
        "GET",
        `/v1/jobs?limit=50${query}`,
        {
          token: t.key,
        },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((j) => j.id));
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort().reverse()).toEqual(seen);

    const odd = await api<{ data: Job[] }>("GET", "/v1/jobs?name=odd_&limit=200", { token: t.key });
    expect(odd.body.data).toHaveLength(60);
    // `_` is a LIKE wildcard: a prefix filter must not treat it as one.
    const underscore = await api<{ data: Job[] }>("GET", "/v1/jobs?name=odd%25&limit=200", { token: t.key });
    expect(underscore.body.data).toHaveLength(0);
    const first = odd.body.data[0] as Job;
    await api("POST", `/v1/jobs/${first.id}/pause`, { token: t.key });
    const paused = await api<{ data: Job[] }>("GET", "/v1/jobs?status=PAUSED", { token: t.key });
    expect(paused.body.data.map((j) => j.id)).toEqual([first.id]);
  }, 30_000);

  it("validates list parameters", async () => {
    const t = await createTenantWithKey();
    for (const query of ["limit=0", "limit=201", "limit=abc", "status=SLEEPING", "cursor=%%%"]) {
      const res = await api<ProblemBody>("GET", `/v1/jobs?${query}`, { token: t.key });
      expect(res.status, query).toBe(400);
    }
    const next = await api<ProblemBody>("GET", "/v1/jobs/job_00000000000000000000000000?next=101", {
      token: t.key,
    });
    expect([400, 404]).toContain(next.status);
  });
});

describe("PATCH /v1/jobs/{id}", () => {
  async function created(key: string, overrides: Record<string, unknown> = {}): Promise<Job> {
    const res = await api<Job>("POST", "/v1/jobs", { token: key, body: jobBody(overrides) });
    expect(res.status).toBe(201);
    return res.body;
  }

  it("merges a partial body, bumps the version and pushes it to the shard", async () => {
    const t = await createTenantWithKey();
    const job = await created(t.key, {
      retry: { max_attempts: 5 },
      metadata: { team: "billing", tier: 1 },
      target: { url: "https://example.com/a", headers: { "x-a": "1" } },
    });
    const res = await api<Job>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: {
        name: "renamed",
        retry: { backoff: { initial: "10s" } },
        metadata: { tier: null, region: "eu" },
        target: { headers: { "x-b": "2" } },
        jitter: "5s",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: job.id, name: "renamed", version: 2, jitter: "5s" });
    expect(res.body.retry).toMatchObject({ max_attempts: 5, backoff: { initial: "10s", max: "1h" } });
    expect(res.body.metadata).toEqual({ team: "billing", region: "eu" });
    expect(res.body.target).toMatchObject({
      url: "https://example.com/a",
      headers: { "x-a": "1", "x-b": "2" },
    });
    expect(res.body.schedule).toEqual(job.schedule);
    const row = await jobsDb(job.id)
      .prepare("SELECT name, version, synced_version FROM jobs WHERE id = ?")
      .bind(job.id)
      .first();
    expect(row).toEqual({ name: "renamed", version: 2, synced_version: 2 });
    // null resets a nullable field to its default.
    const reset = await api<Job>("PATCH", `/v1/jobs/${job.id}`, { token: t.key, body: { jitter: null } });
    expect(reset.body).toMatchObject({ jitter: null, version: 3 });
  });

  it("replaces the schedule whole and re-normalizes it", async () => {
    const t = await createTenantWithKey();
    const job = await created(t.key);
    const res = await api<Job>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { schedule: { type: "cron", expr: "0 9 * * MON-FRI", timezone: "America/New_York" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.schedule).toEqual({
      type: "cron",
      expr: "0 9 * * MON-FRI",
      timezone: "America/New_York",
      dst: { gap: "shift", overlap: "first" },
    });
  });

  it("answers 409 version_conflict for a stale version field or If-Match header", async () => {
    const t = await createTenantWithKey();
    const job = await created(t.key);
    const stale = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "x", version: 7 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const ok = await api<Job>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "y" },
      headers: { "if-match": '"1"' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.version).toBe(2);
    const again = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "z" },
      headers: { "if-match": "1" },
    });
    expect(again.status).toBe(409);
    const withVersion = await api<Job>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "z", version: 2 },
    });
    expect(withVersion.body).toMatchObject({ name: "z", version: 3 });
  });

  it("validates the merged job, naming every field, and stores nothing", async () => {
    const t = await createTenantWithKey();
    const job = await created(t.key);
    const res = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "", target: { url: "gopher://x" }, unknown_field: 1, overlap: "sometimes" },
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(["name", "overlap", "target.url", "unknown_field"]);
    const proto = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: '{"__proto__": {"name": "polluted"}, "target": {"__proto__": {"x": 1}}}',
    });
    expect(proto.status).toBe(400);
    expect(paths(proto.body)).toEqual(["__proto__", "target.__proto__"]);
    const notObject = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, { token: t.key, body: "[1]" });
    expect(notObject.status).toBe(400);
    const badMatch = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "q" },
      headers: { "if-match": "yesterday" },
    });
    expect(badMatch.status).toBe(400);
    // A bad version is named together with the body's bad fields, in one round trip.
    const badVersionAndBody = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: {
        version: "two",
        name: "",
        schedule: { type: "cron", expr: "61 * * * *", timezone: "Mars/Base" },
      },
    });
    expect(badVersionAndBody.status).toBe(400);
    expect(paths(badVersionAndBody.body)).toEqual(["name", "schedule.expr", "schedule.timezone", "version"]);
    const badMatchAndBody = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "" },
      headers: { "if-match": "yesterday" },
    });
    expect(paths(badMatchAndBody.body)).toEqual(["If-Match", "name"]);
    const unchanged = await api<Job>("GET", `/v1/jobs/${job.id}`, { token: t.key });
    expect(unchanged.body).toMatchObject({ name: job.name, version: 1 });
  });
});

describe("job operations", () => {
  it("pauses, resumes and deletes with a version bump each time", async () => {
    const t = await createTenantWithKey();
    const job = (await api<Job>("POST", "/v1/jobs", { token: t.key, body: jobBody() })).body;
    const paused = await api<Job>("POST", `/v1/jobs/${job.id}/pause`, { token: t.key });
    expect(paused.body).toMatchObject({ status: "PAUSED", version: 2, next_fire_times: [] });
    const pausedAgain = await api<Job>("POST", `/v1/jobs/${job.id}/pause`, { token: t.key });
    expect(pausedAgain.body).toMatchObject({ status: "PAUSED", version: 2 });
    const resumed = await api<Job>("POST", `/v1/jobs/${job.id}/resume`, { token: t.key });
    expect(resumed.body).toMatchObject({ status: "ACTIVE", version: 3 });
    const resumedAgain = await api<Job>("POST", `/v1/jobs/${job.id}/resume`, { token: t.key });
    expect(resumedAgain.status).toBe(200);
    expect(resumedAgain.body.version).toBe(3);
    const deleted = await api<Job>("DELETE", `/v1/jobs/${job.id}`, { token: t.key });
    expect(deleted.body).toMatchObject({ status: "DELETED", version: 4 });
    expect((await api<Job>("DELETE", `/v1/jobs/${job.id}`, { token: t.key })).body.version).toBe(4);
    for (const op of ["pause", "resume", "trigger"]) {
      const res = await api<ProblemBody>("POST", `/v1/jobs/${job.id}/${op}`, { token: t.key });
      expect(res.status, op).toBe(409);
      expect(res.body.code).toBe("job_not_active");
    }
    const patch = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { name: "back" },
    });
    expect(patch.status).toBe(409);
    expect(patch.body.code).toBe("job_deleted");
    const list = await api<{ data: Job[] }>("GET", "/v1/jobs", { token: t.key });
    expect(list.body.data.map((j) => j.id)).not.toContain(job.id);
    const deletedList = await api<{ data: Job[] }>("GET", "/v1/jobs?status=DELETED", { token: t.key });
    expect(deletedList.body.data.map((j) => j.id)).toEqual([job.id]);
    const row = await jobsDb(job.id)
      .prepare("SELECT status, version FROM jobs WHERE id = ?")
      .bind(job.id)
      .first();
    expect(row).toEqual({ status: "DELETED", version: 4 });
  });

  it("validates a backfill range", async () => {
    const t = await createTenantWithKey();
    const job = (await api<Job>("POST", "/v1/jobs", { token: t.key, body: jobBody() })).body;
    const backwards = await api<ProblemBody>("POST", `/v1/jobs/${job.id}/backfill`, {
      token: t.key,
      body: { from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" },
    });
    expect(backwards.status).toBe(400);
    expect(paths(backwards.body)).toEqual(["to"]);
    const missing = await api<ProblemBody>("POST", `/v1/jobs/${job.id}/backfill`, { token: t.key, body: {} });
    expect(paths(missing.body)).toEqual(["from", "to"]);
  });

  it("refuses a backfill of more than 1000 instants", async () => {
    const t = await createTenantWithKey();
    const job = (
      await api<Job>("POST", "/v1/jobs", {
        token: t.key,
        body: jobBody({ schedule: { type: "interval", every: "1m", anchor: "2026-01-01T00:00:00Z" } }),
      })
    ).body;
    const res = await api<ProblemBody>("POST", `/v1/jobs/${job.id}/backfill`, {
      token: t.key,
      body: { from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z" },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("too_many_instants");
    expect(paths(res.body)).toEqual(["to"]);
  });
});

describe("every bad field in one answer", () => {
  const badCron = { type: "cron", expr: "61 * * * *", timezone: "Mars/Base" };

  it("names a bad cron and a bad zone together on create, update, batch and preview", async () => {
    const t = await createTenantWithKey();
    const created = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ schedule: badCron }),
    });
    expect(created.status).toBe(400);
    expect(paths(created.body)).toEqual(["schedule.expr", "schedule.timezone"]);
    expect(await jobCount(t.tenantId)).toBe(0);

    const job = (await api<Job>("POST", "/v1/jobs", { token: t.key, body: jobBody() })).body;
    const updated = await api<ProblemBody>("PATCH", `/v1/jobs/${job.id}`, {
      token: t.key,
      body: { schedule: badCron },
    });
    expect(updated.status).toBe(400);
    expect(paths(updated.body)).toEqual(["schedule.expr", "schedule.timezone"]);

    const batch = await api<{ results: { status: number; error?: ProblemBody }[] }>(
      "POST",
      "/v1/jobs/batch",
      {
        token: t.key,
        body: { jobs: [jobBody({ schedule: badCron })] },
      },
    );
    expect(paths(batch.body.results[0]?.error as ProblemBody)).toEqual([
      "jobs.0.schedule.expr",
      "jobs.0.schedule.timezone",
    ]);

    const preview = await api<ProblemBody>("POST", "/v1/schedules/preview", {
      token: t.key,
      body: { schedule: badCron },
    });
    expect(preview.status).toBe(400);
    expect(paths(preview.body)).toEqual(["schedule.expr", "schedule.timezone"]);
  });

  it("names schema, address and cross-field problems together", async () => {
    const t = await createTenantWithKey();
    const res = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({
        name: "",
        schedule: { type: "cron", expr: "0 9 * * *", timezone: "UTC", dst: { gap: "jump" } },
        // Credentials in the URL are refused by the address policy, after the schema.
        target: { url: "https://user:pw@example.com/hook", method: "FETCH", body: "x".repeat(200_000) },
        start_at: "2027-02-01T00:00:00Z",
        end_at: "2027-01-01T00:00:00Z",
      }),
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual([
      "end_at",
      "name",
      "schedule.dst.gap",
      "target.body",
      "target.method",
      "target.url",
    ]);
    expect(await jobCount(t.tenantId)).toBe(0);
  });
});

describe("schedules that can never fire, or cost too much to evaluate", () => {
  const gapOnly = {
    type: "cron",
    expr: "0 1 * 3 7L",
    timezone: "Europe/London",
    dst: { gap: "skip", overlap: "first" },
  };

  it.each([
    ["every match in a DST gap it skips", gapOnly, "expression can never fire"],
    // Every second of London's gap hour, every year: the search stops at its budget.
    ["the worst case for the search", { ...gapOnly, expr: "* * 1 * 3 0L" }, "too costly to evaluate"],
    ["the calendar alone", { ...gapOnly, expr: "0 0 30 2 *" }, "expression can never fire"],
  ])("refuses %s on preview and create, naming schedule.expr", async (_name, schedule, message) => {
    const t = await createTenantWithKey();
    const preview = await api<ProblemBody>("POST", "/v1/schedules/preview", {
      token: t.key,
      body: { schedule, count: 1000 },
    });
    const created = await api<ProblemBody>("POST", "/v1/jobs", { token: t.key, body: jobBody({ schedule }) });
    for (const res of [preview, created]) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.errors).toEqual([{ path: "schedule.expr", message: expect.stringContaining(message) }]);
    }
    expect(await jobCount(t.tenantId)).toBe(0);
  });

  it("names each spec of schedules that can never fire, whichever check refuses it", async () => {
    const t = await createTenantWithKey();
    // One is refused by its syntax (no date matches), one only by the reach search (DST gap), and
    // the one between them fires: the answer names both refused ones and nothing else.
    const schedules = [
      { ...gapOnly, expr: "0 0 30 2 *" },
      { type: "cron", expr: "0 9 * * *", timezone: "UTC" },
      gapOnly,
      { ...gapOnly, expr: "30 1 * 3 7L" },
    ];
    const preview = await api<ProblemBody>("POST", "/v1/schedules/preview", {
      token: t.key,
      body: { schedules, count: 3 },
    });
    const created = await api<ProblemBody>("POST", "/v1/jobs", {
      token: t.key,
      body: jobBody({ schedule: undefined, schedules }),
    });
    for (const res of [preview, created]) {
      expect(res.status).toBe(400);
      expect(paths(res.body)).toEqual(["schedules.0.expr", "schedules.2.expr", "schedules.3.expr"]);
    }
    expect(await jobCount(t.tenantId)).toBe(0);
  });

  it("accepts the same expression with gap: shift, firing just after the gap", async () => {
    const t = await createTenantWithKey();
    const res = await api<{ fire_times: string[] }>("POST", "/v1/schedules/preview", {
      token: t.key,
      body: {
        schedule: { ...gapOnly, dst: { gap: "shift", overlap: "first" } },
        count: 1,
        from: "2026-12-01T00:00:00Z",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.fire_times).toEqual(["2027-03-28T01:00:00.000Z"]);
  });
});
