// The QStash-compatible /v2 publish and batch through the Worker, with real D1, shards, queues
// and a real local target: what is stored, what the target receives, and every refusal as
// QStash's `{"error"}` body naming the bad header.
import { env, runDurableObjectAlarm, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { BASE, createTenantWithKey } from "../helpers/api";
import { shardStub, targetCalls, targetUrl, WAIT } from "../helpers/scheduling";

disarmShardsAfterEach();

let pathCounter = 0;
function uniquePath(kind: string): string {
  pathCounter += 1;
  return `/${kind}/qstash-${Date.now().toString(36)}-${pathCounter}`;
}

async function v2(
  method: string,
  path: string,
  token: string | null,
  init: { headers?: Record<string, string>; body?: string } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body: init.body });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    body: text === "" ? null : JSON.parse(text),
  };
}

async function shardOfMessage(tenantKey: string, id: string): Promise<number> {
  const job = await SELF.fetch(`${BASE}/v1/jobs/${id}`, {
    headers: { authorization: `Bearer ${tenantKey}` },
  });
  return ((await job.json()) as { shard: number }).shard;
}

describe("POST /v2/publish/{destination}", () => {
  it("stores a one-shot job and delivers the raw body, the forwarded headers and the query string", async () => {
    const t = await createTenantWithKey("qstash");
    const path = uniquePath("ok");
    const destination = `${targetUrl(path)}?x=1&y=two`;
    const res = await v2("POST", `/v2/publish/${destination}`, t.key, {
      headers: {
        "content-type": "text/plain",
        "upstash-forward-x-trace": "t-1",
        "upstash-method": "PUT",
        "upstash-label": "billing",
      },
      body: "hello raw",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ messageId: expect.stringMatching(/^job_/), url: destination });

    const message = await v2("GET", `/v2/messages/${res.body.messageId}`, t.key);
    expect(message.status).toBe(200);
    expect(message.body).toMatchObject({
      messageId: res.body.messageId,
      url: destination,
      method: "PUT",
      body: "hello raw",
      maxRetries: 3,
      header: { "x-trace": ["t-1"], "content-type": ["text/plain"] },
      labels: ["billing"],
    });

    await runDurableObjectAlarm(shardStub(await shardOfMessage(t.key, res.body.messageId)));
    const calls = await vi.waitFor(async () => {
      const received = await targetCalls(path);
      expect(received).toHaveLength(1);
      return received;
    }, WAIT);
    expect(calls[0]).toMatchObject({ method: "PUT", url: `${path}?x=1&y=two`, body: "hello raw" });
    expect(calls[0]?.headers["x-trace"]).toBe("t-1");
    expect(calls[0]?.headers["content-type"]).toBe("text/plain");
    // Nothing but Forward-* and Content-Type: never the token, never the client's own headers.
    expect(calls[0]?.headers.authorization).toBeUndefined();
    expect(calls[0]?.headers["upstash-label"]).toBeUndefined();
    expect(calls[0]?.headers["upstash-forward-x-trace"]).toBeUndefined();
  });

  it("keeps a delayed message for later and a Not-Before as its instant", async () => {
    const t = await createTenantWithKey("qstash");
    const beforeMs = Date.now();
    const delayed = await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, t.key, {
      headers: { "upstash-delay": "2h" },
    });
    const read = await v2("GET", `/v2/messages/${delayed.body.messageId}`, t.key);
    expect(read.body.notBefore).toBeGreaterThanOrEqual(beforeMs + 7_200_000);
    expect(read.body.notBefore).toBeLessThan(Date.now() + 7_200_000 + 1_000);
    const notBeforeS = Math.floor(beforeMs / 1000) + 86_400;
    const pinned = await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, t.key, {
      headers: { "upstash-not-before": String(notBeforeS), "upstash-delay": "1s" },
    });
    expect((await v2("GET", `/v2/messages/${pinned.body.messageId}`, t.key)).body.notBefore).toBe(
      notBeforeS * 1000,
    );
  });

  it("answers the first message again for a Deduplication-Id and for the same content", async () => {
    const t = await createTenantWithKey("qstash");
    const url = targetUrl(uniquePath("ok"));
    const first = await v2("POST", `/v2/publish/${url}`, t.key, {
      headers: { "upstash-deduplication-id": "d-1", "upstash-delay": "1h" },
      body: "a",
    });
    const again = await v2("POST", `/v2/publish/${url}`, t.key, {
      headers: { "upstash-deduplication-id": "d-1", "upstash-delay": "1h" },
      body: "b",
    });
    expect(again.body).toEqual({ messageId: first.body.messageId, url, deduplicated: true });

    const contentHeaders = { "upstash-content-based-deduplication": "true", "upstash-delay": "1h" };
    const one = await v2("POST", `/v2/publish/${url}`, t.key, { headers: contentHeaders, body: "same" });
    const two = await v2("POST", `/v2/publish/${url}`, t.key, { headers: contentHeaders, body: "same" });
    const other = await v2("POST", `/v2/publish/${url}`, t.key, { headers: contentHeaders, body: "other" });
    expect(two.body).toEqual({ messageId: one.body.messageId, url, deduplicated: true });
    expect(other.body.messageId).not.toBe(one.body.messageId);
    expect(one.body.messageId).not.toBe(first.body.messageId);

    // Another tenant's identical id is its own message: isolation holds for dedup too.
    const u = await createTenantWithKey("qstash");
    const theirs = await v2("POST", `/v2/publish/${url}`, u.key, {
      headers: { "upstash-deduplication-id": "d-1", "upstash-delay": "1h" },
    });
    expect(theirs.body.deduplicated).toBeUndefined();
  });

  it("stores the retry delay expression on the job for the shard's backoff", async () => {
    const t = await createTenantWithKey("qstash");
    const res = await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, t.key, {
      headers: {
        "upstash-retries": "5",
        "upstash-retry-delay": "pow(2, retried) * 1000",
        "upstash-delay": "1h",
      },
    });
    const job = await SELF.fetch(`${BASE}/v1/jobs/${res.body.messageId}`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(((await job.json()) as { retry: unknown }).retry).toMatchObject({
      max_attempts: 6,
      delay_expression: "pow(2, retried) * 1000",
    });
  });

  it("refuses bad input with a 400 naming every bad header, and stores nothing", async () => {
    const t = await createTenantWithKey("qstash");
    const res = await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, t.key, {
      headers: {
        "upstash-delay": "soon",
        "upstash-retries": "many",
        "upstash-retry-delay": "eval(x)",
      },
    });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe("application/json");
    for (const header of ["Upstash-Delay", "Upstash-Retries", "Upstash-Retry-Delay"])
      expect(res.body.error).toContain(header);
    const list = await SELF.fetch(`${BASE}/v1/jobs`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("drops forwarded hop-by-hop and delivery headers instead of refusing the message", async () => {
    const t = await createTenantWithKey("qstash");
    const res = await v2("POST", `/v2/publish/${targetUrl(uniquePath("fwd"))}`, t.key, {
      headers: {
        "upstash-forward-connection": "close",
        "upstash-forward-host": "endpoint.example",
        "upstash-forward-content-length": "12",
        "upstash-forward-idempotency-key": "run_1",
        "upstash-forward-edgecron-run-id": "run_1",
        "upstash-forward-upstash-signature": "forged",
        "upstash-forward-x-kept": "yes",
      },
    });
    expect(res.status).toBe(201);
    const job = await SELF.fetch(`${BASE}/v1/jobs/${res.body.messageId}`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    const target = ((await job.json()) as { target: { headers: Record<string, string> } }).target;
    expect(target.headers).toEqual({ "x-kept": "yes" });
  });

  it("refuses a destination that is no URL nor URL group, and addresses the SSRF policy refuses", async () => {
    const t = await createTenantWithKey("qstash");
    const group = await v2("POST", "/v2/publish/my-url-group", t.key);
    expect(group.status).toBe(404);
    expect(group.body.error).toContain("url group my-url-group not found");
    const neither = await v2("POST", "/v2/publish/not a url", t.key);
    expect(neither.status).toBe(400);
    expect(neither.body.error).toContain("neither an http(s) URL nor a URL group name");
    const missing = await v2("POST", "/v2/publish/", t.key);
    expect(missing.status).toBe(400);
    // The SSRF policy runs on the destination and both callbacks (credentials are always refused).
    const refused = await v2("POST", "/v2/publish/https://user:pw@example.com/x", t.key, {
      headers: {
        "upstash-callback": "https://u:p@cb.example/ok",
        "upstash-failure-callback": "https://u:p@cb.example/no",
      },
    });
    expect(refused.status).toBe(400);
    for (const part of ["destination", "Upstash-Callback", "Upstash-Failure-Callback"]) {
      expect(refused.body.error).toContain(`${part}: target URL must not contain credentials`);
    }
  });

  it("answers 401 in QStash's shape for a bad token, and 404 for an unknown message", async () => {
    const noToken = await v2("POST", `/v2/publish/${targetUrl("/ok/x")}`, null);
    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ error: expect.any(String) });
    const bad = await v2("GET", "/v2/messages/job_nope", `ek_${"0".repeat(64)}`);
    expect(bad.status).toBe(401);
    const t = await createTenantWithKey("qstash");
    const unknown = await v2("GET", "/v2/messages/job_nope", t.key);
    expect(unknown).toMatchObject({ status: 404, body: { error: expect.stringContaining("job_nope") } });
    const llm = await v2("POST", "/v2/llm/chat", t.key);
    expect(llm.status).toBe(404);
    expect(llm.body.error).toContain("not served");
  });
});

describe("tenant isolation", () => {
  it("never shows, cancels or lists another tenant's message", async () => {
    const owner = await createTenantWithKey("qstash");
    const other = await createTenantWithKey("qstash");
    const res = await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, owner.key, {
      headers: { "upstash-delay": "1h" },
    });
    const id = res.body.messageId as string;
    expect((await v2("GET", `/v2/messages/${id}`, other.key)).status).toBe(404);
    expect((await v2("DELETE", `/v2/messages/${id}`, other.key)).status).toBe(404);
    expect((await v2("DELETE", `/v2/messages?messageIds=${id}`, other.key)).body).toEqual({ cancelled: 0 });
    expect((await v2("DELETE", "/v2/messages", other.key)).body).toEqual({ cancelled: 0 });
    expect((await v2("GET", `/v2/events?messageIds=${id}`, other.key)).body).toEqual({ events: [] });
    expect((await v2("GET", `/v2/messages/${id}`, owner.key)).status).toBe(200);
  });
});

describe("destinations and bulk limits", () => {
  it("takes a percent-encoded destination as the URL it encodes", async () => {
    const t = await createTenantWithKey("qstash");
    const url = `${targetUrl(uniquePath("ok"))}?a=1`;
    const res = await v2("POST", `/v2/publish/${encodeURIComponent(url)}`, t.key, {
      headers: { "upstash-delay": "1h" },
    });
    expect(res).toMatchObject({ status: 201, body: { url } });
  });

  it("refuses more ids than one request may name", async () => {
    const t = await createTenantWithKey("qstash");
    const ids = Array.from({ length: 1001 }, (_, index) => `messageIds=job_${index}`).join("&");
    const res = await v2("DELETE", `/v2/messages?${ids}`, t.key);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("messageIds");
    expect((await v2("GET", "/v2/dlq?cursor=not-a-cursor", t.key)).status).toBe(400);
    expect((await v2("GET", "/v2/events?count=zero", t.key)).status).toBe(400);
  });
});

describe("POST /v2/batch", () => {
  it("stores every message and answers one entry per item, in order", async () => {
    const t = await createTenantWithKey("qstash");
    const urls = [targetUrl(uniquePath("ok")), `${targetUrl(uniquePath("ok"))}?q=1`];
    const res = await v2("POST", "/v2/batch", t.key, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        {
          destination: urls[0],
          headers: { "upstash-delay": "1h", "upstash-deduplication-id": "b-1" },
          body: "one",
        },
        { destination: urls[1], headers: { "upstash-delay": "1h", "upstash-method": "PATCH" }, body: "two" },
        {
          destination: urls[0],
          headers: { "upstash-delay": "1h", "upstash-deduplication-id": "b-1" },
          body: "dup",
        },
      ]),
    });
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(3);
    expect(res.body[1]).toEqual({ messageId: expect.any(String), url: urls[1] });
    expect(res.body[2]).toEqual({ messageId: res.body[0].messageId, url: urls[0], deduplicated: true });
    const second = await v2("GET", `/v2/messages/${res.body[1].messageId}`, t.key);
    expect(second.body).toMatchObject({ method: "PATCH", body: "two" });
  });

  it("names the bad item and header, and stores none of the batch", async () => {
    const t = await createTenantWithKey("qstash");
    const res = await v2("POST", "/v2/batch", t.key, {
      body: JSON.stringify([
        { destination: targetUrl(uniquePath("ok")), headers: { "upstash-delay": "1h" } },
        { destination: targetUrl(uniquePath("ok")), headers: { "upstash-timeout": "forever" } },
      ]),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("[1] Upstash-Timeout");
    const list = await SELF.fetch(`${BASE}/v1/jobs`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
    expect((await v2("POST", "/v2/batch", t.key, { body: "{" })).status).toBe(400);
  });
});

describe("DELETE /v2/messages", () => {
  it("cancels one message, then many by id and by label", async () => {
    const t = await createTenantWithKey("qstash");
    const publishOne = async (label: string) =>
      (
        await v2("POST", `/v2/publish/${targetUrl(uniquePath("ok"))}`, t.key, {
          headers: { "upstash-delay": "1h", "upstash-label": label },
        })
      ).body.messageId as string;
    const [a, b, c, d] = [
      await publishOne("x"),
      await publishOne("x"),
      await publishOne("y"),
      await publishOne("z"),
    ];
    expect(await v2("DELETE", `/v2/messages/${a}`, t.key)).toMatchObject({
      status: 200,
      body: { cancelled: 1 },
    });
    expect((await v2("GET", `/v2/messages/${a}`, t.key)).status).toBe(404);
    expect((await v2("DELETE", `/v2/messages/${a}`, t.key)).status).toBe(404);
    expect((await v2("DELETE", `/v2/messages?messageIds=${b}&messageIds=${a}`, t.key)).body).toEqual({
      cancelled: 1,
    });
    expect((await v2("DELETE", "/v2/messages?label=y&count=100", t.key)).body).toEqual({ cancelled: 1 });
    expect((await v2("GET", `/v2/messages/${c}`, t.key)).status).toBe(404);
    expect((await v2("GET", `/v2/messages/${d}`, t.key)).status).toBe(200);
  });
});

describe("GET /v2/keys", () => {
  it("answers the tenant's signing keys as current and next", async () => {
    const t = await createTenantWithKey("qstash");
    const tenant = await env.DB.prepare("SELECT signing_secret FROM tenants WHERE id = ?")
      .bind(t.tenantId)
      .first<{ signing_secret: string }>();
    const res = await v2("GET", "/v2/keys", t.key);
    expect(res.body).toEqual({ current: tenant?.signing_secret, next: tenant?.signing_secret });
  });
});
