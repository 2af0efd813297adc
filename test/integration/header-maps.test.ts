// Every header map the API takes is validated alike, by one validator (src/core/targets/header-map.ts):
// a name that is not an HTTP token, a value with CR, LF, NUL or another control character, or the
// wrong JSON shape is a 400 naming the field, never a 500, never coerced; and nothing is stored.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { api, createTenantWithKey, jobBody, type TenantWithKey } from "../helpers/api";
import { v2 } from "../helpers/qstash";

disarmShardsAfterEach();

let tenant: TenantWithKey;
beforeAll(async () => {
  tenant = await createTenantWithKey("headers");
});

async function rows(table: string): Promise<number> {
  return (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())?.n ?? 0;
}

const waitBody = (timeoutHeaders: unknown) =>
  JSON.stringify({
    url: "https://example.com/workflow",
    step: { stepId: 1, stepName: "wait", stepType: "Wait" },
    timeout: "10s",
    timeoutHeaders,
  });

describe("POST /v2/wait/{event}: timeoutHeaders", () => {
  it.each([
    [{ "X-Bad": ["a\r\nb"], "Upstash-Workflow-RunId": ["wfr_1"] }, "timeoutHeaders.X-Bad"],
    [{ "X Bad": ["a"], "Upstash-Workflow-RunId": ["wfr_1"] }, "timeoutHeaders.X Bad"],
    [{ "X-Nul": ["a\u0000b"], "Upstash-Workflow-RunId": ["wfr_1"] }, "timeoutHeaders.X-Nul"],
    [{ "Upstash-Workflow-RunId": "wfr_1" }, "timeoutHeaders.Upstash-Workflow-RunId"],
    [{ "Upstash-Workflow-RunId": [] }, "timeoutHeaders.Upstash-Workflow-RunId"],
    [{ "Upstash-Workflow-RunId": [7] }, "timeoutHeaders.Upstash-Workflow-RunId"],
    [["wfr_1"], "timeoutHeaders"],
    ["wfr_1", "timeoutHeaders"],
  ])("refuses %j with a 400 naming %s, storing nothing", async (timeoutHeaders, path) => {
    const jobsBefore = await rows("jobs");
    const res = await v2(
      "POST",
      "/v2/wait/event-1",
      tenant.key,
      { "content-type": "application/json" },
      waitBody(timeoutHeaders),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`${path}:`);
    expect(await rows("jobs")).toBe(jobsBefore);
  });

  it("refuses a wrong timeout or timeoutUrl shape", async () => {
    const body = JSON.parse(waitBody({ "Upstash-Workflow-RunId": ["wfr_1"] }));
    for (const [field, value] of [
      ["timeout", -5],
      ["timeout", 1e30],
      ["timeout", { s: 1 }],
      ["timeoutUrl", 42],
    ] as const) {
      const res = await v2(
        "POST",
        "/v2/wait/event-1",
        tenant.key,
        {},
        JSON.stringify({ ...body, [field]: value }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`${field}:`);
    }
  });
});

describe("POST /v2/batch: each item's headers", () => {
  it.each([
    [[["upstash-delay", "1d"]], "[0] headers"],
    [{ "upstash-delay": 10 }, "[0] headers.upstash-delay"],
    [{ "x bad": "1" }, "[0] headers.x bad"],
    [{ "upstash-forward-x": "a\nb" }, "[0] headers.upstash-forward-x"],
    ["upstash-delay: 1d", "[0] headers"],
  ])("refuses headers %j with a 400 naming %s, storing nothing", async (headers, path) => {
    const jobsBefore = await rows("jobs");
    const items = [{ destination: "https://example.com/hook", headers, body: "x" }];
    const res = await v2(
      "POST",
      "/v2/batch",
      tenant.key,
      { "content-type": "application/json" },
      JSON.stringify(items),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`${path}:`);
    expect(await rows("jobs")).toBe(jobsBefore);
  });
});

describe("a forwarded header and a callback header, as HTTP headers of a publish", () => {
  it.each([
    ["upstash-forward-x-note", "Upstash-Forward-x-note"],
    ["upstash-callback-forward-x-note", "Upstash-Callback-Forward-x-note"],
  ])("refuses a control character in %s, naming it", async (header, named) => {
    const headers = new Headers({ "upstash-callback": "https://example.com/cb" });
    headers.set(header, "a\u0001b");
    const res = await v2(
      "POST",
      "/v2/publish/https://example.com/hook",
      tenant.key,
      Object.fromEntries(headers),
      "x",
    );
    expect(res.status).toBe(400);
    expect(res.body.error.toLowerCase()).toContain(named.toLowerCase());
  });
});

describe("POST /v1/jobs: target headers and callback headers", () => {
  it.each([
    [{ target: { url: "https://example.com/hook", headers: ["x-a", "1"] } }, ["target.headers"]],
    [{ target: { url: "https://example.com/hook", headers: { "x-a": 1 } } }, ["target.headers.x-a"]],
    [
      { target: { url: "https://example.com/hook", headers: { "x a": "1", "x-b": "a\r\nb" } } },
      ["target.headers.x a", "target.headers.x-b"],
    ],
    [
      { target: { type: "service", binding: "BILLING", headers: { "x-b": "\u0000" } } },
      ["target.headers.x-b"],
    ],
    [{ qstash: { callback_headers: { "x-c": "a\nb" } } }, ["qstash.callback_headers.x-c"]],
    [{ qstash: { failure_callback_headers: [] } }, ["qstash.failure_callback_headers"]],
  ])("refuses %j, naming %j", async (fields, paths) => {
    const res = await api<{ errors: { path: string }[] }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: jobBody(fields),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error) => error.path)).toEqual(paths);
  });

  it("keeps a header named __proto__ as a header like any other", async () => {
    const res = await api<{ target: { headers: Record<string, string> } }>("POST", "/v1/jobs", {
      token: tenant.key,
      body: `{"name":"h","schedule":{"type":"once","at":"2099-01-01T00:00:00Z"},"target":{"url":"https://example.com/hook","headers":{"__proto__":"x","x-a":"1"}}}`,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.target.headers)).toEqual(["__proto__", "x-a"]);
  });
});
