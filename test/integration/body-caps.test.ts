// Every route that reads a body caps it: a body over 1 MiB is a 413 problem+json, whether it
// declares its length or streams without one, on every /v1 operation of the OpenAPI document,
// every /v2 route and the console's forms; and nothing is stored.
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/api/http/body";
import { ADMIN_TOKEN, BASE, createTenantWithKey, type TenantWithKey } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";

const OVER = MAX_BODY_BYTES + 1;

let tenant: TenantWithKey;
let operations: { method: string; path: string }[] = [];

beforeAll(async () => {
  tenant = await createTenantWithKey("caps");
  const document = (await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((method) => ["post", "put", "patch", "delete"].includes(method))
      .map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x_1") })),
  );
});

/** A JSON-looking body of `bytes` bytes: declared, or streamed in 64 KiB chunks with no length. */
function oversized(bytes: number, streamed: boolean): BodyInit {
  const text = `{"pad":"${"a".repeat(bytes - 10)}"}`;
  if (!streamed) return text;
  const encoded = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= encoded.byteLength) return controller.close();
      controller.enqueue(encoded.slice(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}

async function send(method: string, path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

async function rows(table: string): Promise<number> {
  return (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())?.n ?? 0;
}

const V2_ROUTES: [method: string, path: string][] = [
  ["POST", "/v2/publish/https://example.com/hook"],
  ["POST", "/v2/enqueue/q1/https://example.com/hook"],
  ["POST", "/v2/batch"],
  ["POST", "/v2/schedules/https://example.com/hook"],
  ["POST", "/v2/queues"],
  ["POST", "/v2/topics/g1/endpoints"],
  ["DELETE", "/v2/topics/g1/endpoints"],
  ["POST", "/v2/wait/event-1"],
  ["POST", "/v2/notify/event-1"],
  ["POST", "/v2/notify/wfr_1/event-1"],
  ["DELETE", "/v2/workflows/runs/wfr_1"],
  ["DELETE", "/v2/messages"],
  ["POST", "/v2/dlq/retry"],
  ["POST", "/v2/workflows/dlq/resume"],
  ["POST", "/v2/flowControl/k1/pause"],
];

describe("a body over 1 MiB is a 413 problem+json on every route", () => {
  it("covers every /v1 operation that can take a body (from the OpenAPI document)", async () => {
    expect(operations.length).toBeGreaterThan(20);
    const jobsBefore = await rows("jobs");
    for (const { method, path } of operations) {
      for (const streamed of [false, true]) {
        const res = await send(method, path, oversized(OVER, streamed));
        expect({ method, path, streamed, status: res.status, type: res.type }).toEqual({
          method,
          path,
          streamed,
          status: 413,
          type: "application/problem+json",
        });
        expect(JSON.parse(res.body).code).toBe("payload_too_large");
      }
    }
    expect(await rows("jobs")).toBe(jobsBefore);
  });

  it.each(V2_ROUTES)("covers %s %s, declared or streamed", async (method, path) => {
    const jobsBefore = await rows("jobs");
    for (const streamed of [false, true]) {
      const res = await send(method, path, oversized(OVER, streamed));
      expect(res.status).toBe(413);
      expect(res.type).toBe("application/problem+json");
      expect(JSON.parse(res.body).code).toBe("payload_too_large");
    }
    expect(await rows("jobs")).toBe(jobsBefore);
  });

  it("refuses before authenticating, without reading a declared oversized body", async () => {
    const res = await SELF.fetch(`${BASE}/v2/notify/event-1`, {
      method: "POST",
      headers: { authorization: "Bearer nope", "content-length": String(10 * 1024 * 1024) },
      body: oversized(OVER, true),
    });
    expect(res.status).toBe(413);
  });

  it("takes a body of exactly 1 MiB (the cap is inclusive)", async () => {
    const res = await send("POST", "/v1/schedules/preview", oversized(MAX_BODY_BYTES, false));
    expect(res.status).toBe(400); // read whole, then refused for its content
    expect(JSON.parse(res.body).code).toBe("validation_failed");
  });

  it("caps the console's forms too", async () => {
    const client = new ConsoleClient();
    await client.signIn(ADMIN_TOKEN);
    const csrf = await client.csrf();
    const res = await client.post("/console/tenant", { _csrf: csrf, tenant: "x".repeat(OVER) });
    expect(res.status).toBe(413);
  });
});
