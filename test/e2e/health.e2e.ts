import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, apiClient, removeState, type SchedulerProcess, startScheduler } from "./harness";

describe("wrangler dev as a process", () => {
  let server: SchedulerProcess;
  beforeAll(async () => {
    server = await startScheduler();
  });
  afterAll(async () => {
    await server?.stop();
    if (server) removeState(server.stateDir);
  });

  it("answers /healthz", async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
  });

  // The dev server reports the socket's address as CF-Connecting-IP (on Cloudflare the edge always
  // sets it), and its rate limiter counts the failures: guesses from here slow to 20 a minute.
  it("throttles guesses from the caller's address, never the right API key", async () => {
    const admin = apiClient(server.baseUrl, ADMIN_TOKEN);
    const tenant = await admin<{ id: string }>("POST", "/v1/tenants", { name: "throttled" });
    const key = await admin<{ key: string }>("POST", "/v1/api-keys", { tenant_id: tenant.body.id });
    const statuses: number[] = [];
    let throttled: Response | null = null;
    for (let attempt = 0; attempt < 41 && throttled === null; attempt++) {
      const res = await fetch(`${server.baseUrl}/v1/tenants`, {
        headers: { authorization: `Bearer guess-${attempt}` },
      });
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
      else await res.body?.cancel();
    }
    if (throttled === null) throw new Error(`no 429 among: ${statuses.join(",")}`);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(((await throttled.json()) as { code: string }).code).toBe("auth_throttled");
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    const own = await apiClient(server.baseUrl, key.body.key)("GET", "/v1/jobs");
    expect(own.status).toBe(200);
  });
});
