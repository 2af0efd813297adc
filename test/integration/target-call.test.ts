import { SELF } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { parseSignatureHeader } from "../../src/client/verify";
import type { HttpTarget } from "../../src/core/jobs/job-spec";
import { type CallTargetInput, callTarget, signatureHeader } from "../../src/delivery/target-call";
import { limiter, runPool, semaphore } from "../../src/queue/pool";
import { deliveryVerifies } from "../helpers/signature";

interface Received {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** An in-test target, plus a fetch that behaves like the runtime's towards it. */
function makeTarget() {
  const received: Received[] = [];
  const app = new Hono();
  app.use(async (c, next) => {
    received.push({
      method: c.req.method,
      url: c.req.url,
      path: c.req.path,
      headers: Object.fromEntries(c.req.raw.headers),
      body: await c.req.text(),
    });
    await next();
  });
  app.all("/ok", (c) => c.text("fine, thanks"));
  app.all("/moved", (c) => c.redirect("/elsewhere", 302));
  app.all("/elsewhere", (c) => c.text("you followed a redirect"));
  app.all("/busy", (c) => c.text("try later\n  please", 503, { "retry-after": "120" }));
  app.all("/missing", (c) => c.text("no such hook", 404));
  app.all("/slow", async (c) => {
    await new Promise((resolve) => c.req.raw.signal.addEventListener("abort", resolve));
    return c.text("too late");
  });

  // Like the runtime's fetch: rejects with the signal's reason on abort, and follows redirects
  // unless the request says "manual". Routing every call here proves what the target saw.
  const fetchImpl = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    let request = new Request(input, init);
    for (let hop = 0; hop < 5; hop++) {
      const response = await raceAbort(Promise.resolve(app.fetch(request)), request.signal);
      const location = response.headers.get("location");
      if (
        request.redirect === "manual" ||
        location === null ||
        response.status < 300 ||
        response.status > 399
      ) {
        return response;
      }
      request = new Request(new URL(location, request.url), { method: "GET", signal: request.signal });
    }
    throw new TypeError("too many redirects");
  }) as unknown as typeof fetch & ReturnType<typeof vi.fn>;
  return { received, fetchImpl };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason));
    promise.then(resolve, reject);
  });
}

const SCHEDULED_AT_MS = Date.UTC(2026, 11, 1, 0, 0, 0);
const NOW_MS = Date.UTC(2026, 11, 1, 0, 0, 0, 250);

function input(target: Partial<HttpTarget>, overrides: Partial<CallTargetInput> = {}): CallTargetInput {
  return {
    target: { type: "http", url: "https://hooks.example.com/ok", method: "POST", headers: {}, ...target },
    runId: "run_1",
    jobId: "job_1",
    scheduledAtMs: SCHEDULED_AT_MS,
    attempt: 2,
    idempotencyKey: `job_1:${SCHEDULED_AT_MS}`,
    secrets: ["whsec_current"],
    timeoutMs: 5_000,
    allowPrivate: false,
    nowMs: NOW_MS,
    ...overrides,
  };
}

/** Whether a receiver holding `secrets` accepts the call, per the client's verifySignature at NOW_MS. */
function verifies(call: Received | undefined, secrets: string[]): Promise<boolean> {
  if (!call) throw new Error("the target received no call");
  return deliveryVerifies({ ...call, receivedAtMs: NOW_MS }, secrets);
}

describe("callTarget", () => {
  it("sends the job's method, headers and JSON body plus the edgecron headers", async () => {
    const { received, fetchImpl } = makeTarget();
    const outcome = await callTarget(
      input({ headers: { "x-tenant": "acme" }, body: { sub: 42 } }, { fetchImpl }),
    );
    expect(outcome).toMatchObject({ kind: "success", status: 200 });
    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call?.method).toBe("POST");
    expect(call?.body).toBe('{"sub":42}');
    expect(call?.headers).toMatchObject({
      "x-tenant": "acme",
      "content-type": "application/json",
      "user-agent": "edgecron/0.1",
      "idempotency-key": `job_1:${SCHEDULED_AT_MS}`,
      "edgecron-job-id": "job_1",
      "edgecron-run-id": "run_1",
      "edgecron-scheduled-at": "2026-12-01T00:00:00.000Z",
      "edgecron-attempt": "2",
    });
    expect(call?.headers["edgecron-signature"]).toMatch(/^t=1796083200,v2=[0-9a-f]{64}$/);
    expect(await verifies(call, ["whsec_current"])).toBe(true);
  });

  it("keeps the job's content-type and sends a string body as is", async () => {
    const { received, fetchImpl } = makeTarget();
    await callTarget(input({ headers: { "Content-Type": "text/csv" }, body: "a,b\n1,2" }, { fetchImpl }));
    await callTarget(input({ body: { json: true } }, { fetchImpl }));
    expect(received[0]?.headers["content-type"]).toBe("text/csv");
    expect(received[0]?.body).toBe("a,b\n1,2");
    expect(received[1]?.headers["content-type"]).toBe("application/json");
  });

  it("sends no body with GET and signs the empty body", async () => {
    const { received, fetchImpl } = makeTarget();
    const outcome = await callTarget(input({ method: "GET", body: { ignored: true } }, { fetchImpl }));
    expect(outcome.kind).toBe("success");
    expect(received[0]?.method).toBe("GET");
    expect(received[0]?.body).toBe("");
    expect(received[0]?.headers["content-type"]).toBeUndefined();
    expect(await verifies(received[0], ["whsec_current"])).toBe(true);
  });

  it("signs with every active secret, current first, so either key verifies during rotation", async () => {
    const { received, fetchImpl } = makeTarget();
    await callTarget(input({ body: { n: 1 } }, { fetchImpl, secrets: ["whsec_new", "whsec_old"] }));
    const header = received[0]?.headers["edgecron-signature"] ?? "";
    expect(header).toMatch(/^t=\d+,v2=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    const call = received[0];
    expect(await verifies(call, ["whsec_new"])).toBe(true);
    expect(await verifies(call, ["whsec_old"])).toBe(true);
    expect(await verifies(call, ["whsec_other"])).toBe(false);
    expect(await verifies(call && { ...call, body: '{"n":2}' }, ["whsec_new"])).toBe(false); // tampered body
    // Current first: the first signature is the one a call signed with the current secret alone carries.
    await callTarget(input({ body: { n: 1 } }, { fetchImpl, secrets: ["whsec_new"] }));
    const currentOnly = parseSignatureHeader(received[1]?.headers["edgecron-signature"] ?? "");
    expect(parseSignatureHeader(header)?.signatures[0]).toEqual(currentOnly?.signatures[0]);
    const parts = {
      method: "POST",
      url: "https://x.example/",
      idempotencyKey: "k",
      runId: "r",
      attempt: "1",
    };
    expect(await signatureHeader(["a", "a"], 1, parts, "")).toMatch(/^t=1,v2=[0-9a-f]{64}$/); // duplicates collapse
  });

  it("sends no signature header when the tenant has no secret", async () => {
    const { received, fetchImpl } = makeTarget();
    await callTarget(input({}, { fetchImpl, secrets: [] }));
    expect(received[0]?.headers["edgecron-signature"]).toBeUndefined();
  });

  it("does not follow a redirect and fails permanently", async () => {
    const { received, fetchImpl } = makeTarget();
    const outcome = await callTarget(input({ url: "https://hooks.example.com/moved" }, { fetchImpl }));
    expect(outcome).toMatchObject({ kind: "permanent", status: 302 });
    expect(outcome.kind === "permanent" && outcome.error).toMatch(/redirects are not followed/);
    expect(received.map((call) => call.path)).toEqual(["/moved"]);
  });

  it("times out a target that does not answer and marks it retryable", async () => {
    const { fetchImpl } = makeTarget();
    const outcome = await callTarget(
      input({ url: "https://hooks.example.com/slow" }, { fetchImpl, timeoutMs: 50 }),
    );
    expect(outcome).toMatchObject({ kind: "retryable", status: null, retryAfterMs: null });
    expect(outcome.kind === "retryable" && outcome.error).toMatch(/timeout/);
  });

  it("refuses a private address at call time without calling fetch", async () => {
    const { fetchImpl } = makeTarget();
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://2130706433/", "http://[::1]/"]) {
      const outcome = await callTarget(input({ url }, { fetchImpl }));
      expect(outcome).toMatchObject({ kind: "permanent", status: null, durationMs: 0 });
      expect(outcome.kind === "permanent" && outcome.error).toMatch(/private address .*refused/);
    }
    expect(fetchImpl).not.toHaveBeenCalled();
    await callTarget(input({ url: "http://127.0.0.1:9/ok" }, { fetchImpl, allowPrivate: true }));
    expect(fetchImpl).toHaveBeenCalledTimes(1);
  });

  it("classifies answers: Retry-After and a body snippet on 503, 404 permanent unless listed", async () => {
    const { fetchImpl } = makeTarget();
    const busy = await callTarget(input({ url: "https://hooks.example.com/busy" }, { fetchImpl }));
    expect(busy).toMatchObject({ kind: "retryable", status: 503, retryAfterMs: 120_000 });
    expect(busy.kind === "retryable" && busy.error).toBe("target answered 503: try later please");
    const missing = await callTarget(input({ url: "https://hooks.example.com/missing" }, { fetchImpl }));
    expect(missing).toMatchObject({
      kind: "permanent",
      status: 404,
      error: "target answered 404: no such hook",
    });
    const listed = await callTarget(
      input({ url: "https://hooks.example.com/missing" }, { fetchImpl, retryOnStatus: [404] }),
    );
    expect(listed.kind).toBe("retryable");
  });

  it("turns a network error into a retryable outcome and a bad header into a permanent one", async () => {
    const failing = vi.fn(async () => {
      throw new TypeError("Network connection lost.");
    });
    const lost = await callTarget(input({}, { fetchImpl: failing }));
    expect(lost).toMatchObject({
      kind: "retryable",
      status: null,
      error: "network error calling target: Network connection lost.",
    });
    const bad = await callTarget(input({ headers: { "x-bad": "line\nbreak" } }, { fetchImpl: failing }));
    expect(bad).toMatchObject({ kind: "permanent", status: null });
    expect(bad.kind === "permanent" && bad.error).toMatch(/request could not be built/);
    expect(failing).toHaveBeenCalledTimes(1);
  });

  it("works through the runtime's own fetch against a live worker", async () => {
    const fetchImpl = ((request: Request) => SELF.fetch(request)) as typeof fetch;
    const ok = await callTarget(
      input({ url: "http://edgecron.test/healthz", method: "GET" }, { fetchImpl, allowPrivate: true }),
    );
    expect(ok).toMatchObject({ kind: "success", status: 200 });
    const missing = await callTarget(
      input({ url: "http://edgecron.test/nope" }, { fetchImpl, allowPrivate: true }),
    );
    expect(missing).toMatchObject({ kind: "permanent", status: 404 });
  });

  it("reports a refused connection from the real global fetch as retryable", async () => {
    const outcome = await callTarget(
      input({ url: "http://127.0.0.1:1/" }, { allowPrivate: true, timeoutMs: 5_000 }),
    );
    expect(outcome).toMatchObject({ kind: "retryable", status: null });
  });
});

describe("runPool", () => {
  it("keeps at most `concurrency` calls in flight and results in input order", async () => {
    let inFlight = 0;
    let peak = 0;
    const items = Array.from({ length: 40 }, (_, i) => i);
    const results = await runPool(items, 4, async (item) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, (item * 7) % 5));
      inFlight--;
      return item * 2;
    });
    expect(peak).toBe(4);
    expect(results.map((result) => result.status === "fulfilled" && result.value)).toEqual(
      items.map((i) => i * 2),
    );
  });

  it("never rejects because one item throws, even synchronously", async () => {
    const results = await runPool([1, 2, 3], 2, (item) => {
      if (item === 2) throw new Error("sync boom");
      if (item === 3) return Promise.reject(new Error("async boom"));
      return Promise.resolve(item);
    });
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(results[1]?.status === "rejected" && (results[1].reason as Error).message).toBe("sync boom");
  });

  it("handles empty input and rejects a non-positive concurrency as a bug", async () => {
    expect(await runPool([], 8, async () => 1)).toEqual([]);
    expect(await runPool([1], 100, async (item) => item)).toEqual([{ status: "fulfilled", value: 1 }]);
    await expect(runPool([1], 0, async (item) => item)).rejects.toThrow(RangeError);
  });
});

describe("limiter", () => {
  it("bounds calls shared by independent callers, starts them in call order, and frees a slot on failure", async () => {
    const limit = limiter(3);
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (id: number, fail = false) =>
      limit(async () => {
        started.push(id);
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (fail) throw new Error(`task ${id} failed`);
        return id;
      });
    // Two "messages" share the limit, as in the dispatch consumer.
    const first = Promise.allSettled([task(0), task(1, true), task(2), task(3)]);
    const second = Promise.allSettled([task(4), task(5), task(6)]);
    const results = [...(await first), ...(await second)];
    expect(peak).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
  });

  it("rejects a non-positive concurrency as a bug", () => {
    expect(() => limiter(0)).toThrow(RangeError);
  });
});

describe("semaphore", () => {
  it("passes a slot released early straight to the first waiter; a second release frees nothing", async () => {
    const slots = semaphore(1);
    const first = await slots.acquire();
    const order: string[] = [];
    const waiter = slots.acquire().then((release) => {
      order.push("waiter");
      return release;
    });
    // Released before the first holder's work ends (a handed-off call): the waiter gets the slot,
    // and a newcomer arriving meanwhile does not jump ahead of it.
    first();
    const newcomer = slots.acquire().then((release) => {
      order.push("newcomer");
      return release;
    });
    const waiterRelease = await waiter;
    first();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(["waiter"]);
    waiterRelease();
    (await newcomer)();
    expect(order).toEqual(["waiter", "newcomer"]);
  });
});
