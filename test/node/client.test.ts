import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EdgecronClient, EdgecronNetworkError, EdgecronProblemError } from "../../src/client/index";
import { type StubServer, sampleJob, startStub } from "./stub-server";

const JOB_BODY = {
  name: "renew-42",
  schedule: { type: "cron" as const, expr: "0 9 * * MON-FRI", timezone: "America/New_York" },
  target: { url: "https://example.com/hook" },
};

const PROBLEM_400 = {
  type: "https://edgecron.dev/problems/validation",
  title: "Invalid request",
  status: 400,
  detail: "2 fields are invalid",
  code: "validation_failed",
  errors: [
    { path: "schedule.expr", message: "unknown field value MONX" },
    { path: "target.url", message: "must use http or https" },
  ],
};

describe("EdgecronClient", () => {
  let stub: StubServer;
  let sleeps: number[];
  let client: EdgecronClient;

  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
    sleeps = [];
    client = new EdgecronClient({
      baseUrl: stub.url,
      token: "ek_test",
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
  });

  describe("requests", () => {
    it("sends the bearer token and JSON, and returns the parsed body", async () => {
      stub.reply(() => ({ status: 201, body: sampleJob() }));
      const job = await client.jobs.create(JOB_BODY);
      expect(job.id).toBe("job_01");
      const [request] = stub.requests;
      expect(request?.method).toBe("POST");
      expect(request?.path).toBe("/v1/jobs");
      expect(request?.headers.authorization).toBe("Bearer ek_test");
      expect(request?.headers["content-type"]).toBe("application/json");
      expect(request?.json()).toEqual(JOB_BODY);
    });

    it("puts list filters in the query and skips unset ones", async () => {
      stub.reply(() => ({ status: 200, body: { data: [], next_cursor: null } }));
      await client.jobs.list({ status: "PAUSED", name: "renew-", limit: 10 });
      await client.runs.list({ job_id: "job_01" });
      await client.jobs.get("job/01", { next: 20 });
      expect(stub.requests.map((r) => r.path)).toEqual([
        "/v1/jobs?status=PAUSED&name=renew-&limit=10",
        "/v1/runs?job_id=job_01",
        "/v1/jobs/job%2F01?next=20",
      ]);
    });

    it("creates, replaces and deletes calendars with the documented methods and paths", async () => {
      stub.reply(() => ({ status: 200, body: { name: "uk", revision: 1 } }));
      const rules = [{ type: "date" as const, date: "2026-12-25" }];
      await client.calendars.create({ name: "uk", timezone: "Europe/London", rules });
      await client.calendars.put("uk holidays", { timezone: "Europe/London", rules });
      await client.calendars.list();
      await client.calendars.get("uk");
      await client.calendars.delete("uk");
      expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        "POST /v1/calendars",
        "PUT /v1/calendars/uk%20holidays",
        "GET /v1/calendars",
        "GET /v1/calendars/uk",
        "DELETE /v1/calendars/uk",
      ]);
      expect(stub.requests[1]?.json()).toEqual({ timezone: "Europe/London", rules });
    });

    it("keeps a path prefix of the base URL", async () => {
      stub.reply(() => ({ status: 200, body: { status: "ok" } }));
      const prefixed = new EdgecronClient({ baseUrl: `${stub.url}/edgecron`, token: "t" });
      await prefixed.health();
      expect(stub.requests[0]?.path).toBe("/edgecron/healthz");
    });

    it("sends Edgecron-Tenant for an admin acting on a tenant, and If-Match on update", async () => {
      stub.reply(() => ({ status: 200, body: sampleJob({ version: 2 }) }));
      await client.withTenant("ten_1").jobs.update("job_01", { name: "x" }, { ifMatch: 1 });
      expect(stub.requests[0]?.headers["edgecron-tenant"]).toBe("ten_1");
      expect(stub.requests[0]?.headers["if-match"]).toBe("1");
      expect(stub.requests[0]?.method).toBe("PATCH");
    });

    it("follows next_cursor across pages", async () => {
      stub.reply((request) => {
        const cursor = new URL(request.path, stub.url).searchParams.get("cursor");
        if (!cursor)
          return {
            status: 200,
            body: { data: [sampleJob({ id: "a" }), sampleJob({ id: "b" })], next_cursor: "c2" },
          };
        return { status: 200, body: { data: [sampleJob({ id: "c" })], next_cursor: null } };
      });
      const ids: string[] = [];
      for await (const job of client.jobs.all({ status: "ACTIVE" })) ids.push(job.id);
      expect(ids).toEqual(["a", "b", "c"]);
      expect(stub.requests.map((r) => r.path)).toEqual([
        "/v1/jobs?status=ACTIVE",
        "/v1/jobs?status=ACTIVE&cursor=c2",
      ]);
    });
  });

  describe("errors", () => {
    it("surfaces a problem+json as EdgecronProblemError with every field error", async () => {
      stub.reply(() => ({ status: 400, body: PROBLEM_400 }));
      const error = await client.jobs.create(JOB_BODY).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EdgecronProblemError);
      const problem = error as EdgecronProblemError;
      expect(problem.status).toBe(400);
      expect(problem.code).toBe("validation_failed");
      expect(problem.problem).toEqual(PROBLEM_400);
      expect(problem.errors).toHaveLength(2);
      expect(problem.message).toContain("schedule.expr: unknown field value MONX");
    });

    it("turns a non-JSON error page into a problem with the status", async () => {
      stub.reply(() => ({ status: 404, body: "<html>not here</html>" }));
      const error = (await client.jobs.get("job_x").catch((e: unknown) => e)) as EdgecronProblemError;
      expect(error).toBeInstanceOf(EdgecronProblemError);
      expect(error.problem).toMatchObject({ status: 404, title: "Not Found", code: "http_error" });
      expect(error.problem.detail).toContain("not here");
    });
  });

  describe("retries", () => {
    it("retries a GET after 503 and returns the later 200, with jittered backoff", async () => {
      stub.reply((_, index) =>
        index < 2
          ? { status: 503, body: { title: "busy", status: 503 } }
          : { status: 200, body: sampleJob() },
      );
      const job = await client.jobs.get("job_01");
      expect(job.id).toBe("job_01");
      expect(stub.requests).toHaveLength(3);
      // Full jitter with random() = 0.5: half of 250 ms, then half of 500 ms.
      expect(sleeps).toEqual([125, 250]);
    });

    it("never retries a 400, 404 or 409", async () => {
      for (const status of [400, 404, 409]) {
        stub.requests.length = 0;
        stub.reply(() => ({ status, body: { ...PROBLEM_400, status } }));
        await expect(client.jobs.get("job_01")).rejects.toBeInstanceOf(EdgecronProblemError);
        expect(stub.requests).toHaveLength(1);
      }
      expect(sleeps).toEqual([]);
    });

    it("gives up after the configured retries with the last problem", async () => {
      stub.reply(() => ({ status: 500, body: { title: "boom", status: 500, code: "internal" } }));
      const error = (await client.stats().catch((e: unknown) => e)) as EdgecronProblemError;
      expect(error.code).toBe("internal");
      expect(stub.requests).toHaveLength(4);
      expect(sleeps).toHaveLength(3);
    });

    it("honours Retry-After on 429", async () => {
      stub.reply((_, index) =>
        index === 0
          ? { status: 429, headers: { "retry-after": "2" }, body: { title: "slow down", status: 429 } }
          : { status: 200, body: { data: [], next_cursor: null } },
      );
      await client.deadLetters.list();
      expect(sleeps).toEqual([2000]);
    });

    it("surfaces a 429 at once when Retry-After asks for longer than it will wait", async () => {
      stub.reply(() => ({
        status: 429,
        headers: { "retry-after": "3600" },
        body: { title: "quota", status: 429 },
      }));
      await expect(client.alerts.list()).rejects.toMatchObject({ status: 429 });
      expect(stub.requests).toHaveLength(1);
    });

    it("retries a create under one generated Idempotency-Key", async () => {
      stub.reply((_, index) =>
        index === 0 ? { status: 502, body: "bad gateway" } : { status: 201, body: sampleJob() },
      );
      await client.jobs.create(JOB_BODY);
      const keys = stub.requests.map((r) => r.headers["idempotency-key"]);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
    });

    it("uses the caller's Idempotency-Key and a fresh one per create call", async () => {
      stub.reply(() => ({ status: 201, body: sampleJob() }));
      await client.jobs.create(JOB_BODY, { idempotencyKey: "mine-1" });
      await client.jobs.create(JOB_BODY);
      await client.jobs.create(JOB_BODY);
      const keys = stub.requests.map((r) => r.headers["idempotency-key"]);
      expect(keys[0]).toBe("mine-1");
      expect(keys[1]).not.toBe(keys[2]);
    });

    it("retries a batch create under one Idempotency-Key", async () => {
      stub.reply((_, index) =>
        index === 0
          ? { status: 0, destroy: true }
          : { status: 200, body: { created: 1, failed: 0, results: [] } },
      );
      await expect(client.jobs.createBatch([JOB_BODY])).resolves.toMatchObject({ created: 1 });
      expect(stub.requests).toHaveLength(2);
      const keys = stub.requests.map((r) => r.headers["idempotency-key"]);
      expect(keys[0]).toBeTruthy();
      expect(keys[1]).toBe(keys[0]);
    });

    it("does not retry calls that are not idempotent (pause, trigger, redrive)", async () => {
      stub.reply(() => ({ status: 503, body: { title: "busy", status: 503 } }));
      await expect(client.jobs.pause("job_01")).rejects.toMatchObject({ status: 503 });
      await expect(client.jobs.trigger("job_01")).rejects.toMatchObject({ status: 503 });
      await expect(client.deadLetters.redrive("dl_1")).rejects.toMatchObject({ status: 503 });
      expect(stub.requests).toHaveLength(3);
      expect(sleeps).toEqual([]);
    });

    it("reports an unreachable API as EdgecronNetworkError after retrying", async () => {
      const unreachable = new EdgecronClient({
        baseUrl: "http://127.0.0.1:9",
        token: "t",
        retries: 2,
        sleep: async () => {},
      });
      const error = await unreachable.jobs.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EdgecronNetworkError);
      expect((error as Error).message).toContain("http://127.0.0.1:9/v1/jobs");
    });

    it("abandons an attempt that hangs past timeoutMs and retries it", async () => {
      const impatient = new EdgecronClient({
        baseUrl: stub.url,
        token: "t",
        timeoutMs: 200,
        sleep: async () => {},
      });
      stub.reply((_, index) =>
        index === 0
          ? { status: 200, delayMs: 2_000, body: { status: "late" } }
          : { status: 200, body: { status: "ok" } },
      );
      const started = Date.now();
      expect(await impatient.health()).toEqual({ status: "ok" });
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(stub.requests).toHaveLength(2);
    });

    it("reports a hung non-idempotent call as a network error without retrying", async () => {
      const impatient = new EdgecronClient({ baseUrl: stub.url, token: "t", timeoutMs: 200 });
      stub.reply(() => ({ status: 200, delayMs: 2_000, body: {} }));
      const error = await impatient.jobs.pause("job_01").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EdgecronNetworkError);
      expect((error as Error).message).toContain("no response within 200 ms");
      expect(stub.requests).toHaveLength(1);
    });

    it("stops when the caller aborts", async () => {
      const controller = new AbortController();
      stub.reply(() => ({ status: 200, delayMs: 2_000, body: {} }));
      const pending = client.jobs.list({}, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("user cancelled")), 100);
      await expect(pending).rejects.toThrow("user cancelled");
      expect(stub.requests).toHaveLength(1);
    });

    it("honours retries: 0", async () => {
      const noRetry = new EdgecronClient({ baseUrl: stub.url, token: "t", retries: 0 });
      stub.reply(() => ({ status: 503, body: { title: "busy", status: 503 } }));
      await expect(noRetry.jobs.list()).rejects.toMatchObject({ status: 503 });
      expect(stub.requests).toHaveLength(1);
    });

    it("waits for real between attempts by default", async () => {
      const real = new EdgecronClient({
        baseUrl: stub.url,
        token: "t",
        retries: { retries: 1, baseDelayMs: 100 },
        random: () => 1,
      });
      stub.reply((_, index) =>
        index === 0
          ? { status: 503, body: { title: "busy", status: 503 } }
          : { status: 200, body: { status: "ok" } },
      );
      const started = Date.now();
      await real.health();
      expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    });
  });
});
