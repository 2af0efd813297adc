import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";

const ADMIN = { authorization: `Bearer ${env.EDGECRON_ADMIN_TOKEN}`, "content-type": "application/json" };
let AUTH: Record<string, string> = {};

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await SELF.fetch(`http://edgecron.test${path}`, {
    method: "POST",
    headers: ADMIN,
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

beforeAll(async () => {
  const tenant = await post<{ id: string }>("/v1/tenants", { name: "methods" });
  const key = await post<{ key: string }>("/v1/api-keys", { tenant_id: tenant.id });
  AUTH = { authorization: `Bearer ${key.key}` };
});

describe("a wrong method on a route that exists", () => {
  it.each([
    ["PUT", "/v1/jobs", "GET, POST, HEAD"],
    ["DELETE", "/v1/runs", "GET, HEAD"],
    ["GET", "/v1/jobs/job_x/pause", "POST"],
    ["PUT", "/v1/jobs/job_x", "GET, PATCH, DELETE, HEAD"],
    ["GET", "/v1/schedules/preview", "POST"],
  ])("answers %s %s with 405 problem+json and Allow: %s", async (method, path, allow) => {
    const res = await SELF.fetch(`http://edgecron.test${path}`, { method, headers: AUTH });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({
      status: 405,
      code: "method_not_allowed",
      title: "Method Not Allowed",
    });
  });

  it("still answers 404 for a path no route has", async () => {
    const res = await SELF.fetch("http://edgecron.test/v1/nothing-here", { headers: AUTH });
    expect(res.status).toBe(404);
    expect(res.headers.get("allow")).toBeNull();
    expect(await res.json()).toMatchObject({ code: "not_found" });
  });
});
